import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

// package.json: what VS Code reads before any of the extension's code runs.
const root = path.join(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const contributes = manifest.contributes;
const commandIds: string[] = contributes.commands.map((c: { command: string }) => c.command);
/** Commands that change files: hidden and refused in an untrusted workspace. */
const WRITING = [
  "llmPatch.applyFromClipboard",
  "llmPatch.previewFromClipboard",
  "llmPatch.applySelection",
  "llmPatch.previewSelection",
  "llmPatch.applyPatchFile",
  "llmPatch.applyReply",
  "llmPatch.undoLastPatch",
];

function menuEntries(): { menu: string; command: string; when?: string; group?: string }[] {
  return Object.entries(contributes.menus as Record<string, { command: string; when?: string; group?: string }[]>).flatMap(
    ([menu, entries]) => entries.map((e) => ({ menu, ...e })),
  );
}

describe("package.json", () => {
  it("activates on its commands (implicit) and on reply documents, not at every startup", () => {
    assert.deepEqual(manifest.activationEvents, ["onLanguage:llm-reply", "onLanguage:diff"]);
    const language = contributes.languages.find((l: { id: string }) => l.id === "llm-reply");
    assert.deepEqual(language.filenamePatterns, ["*.llm.md"]);
    const grammar = JSON.parse(readFileSync(path.join(root, contributes.grammars[0].path), "utf8"));
    assert.equal(contributes.grammars[0].language, "llm-reply");
    assert.deepEqual(grammar.patterns, [{ include: "text.html.markdown" }], "a reply is highlighted as Markdown");
    assert.ok(readFileSync(path.join(root, language.configuration), "utf8").includes("blockComment"));
  });

  it("offers every command the issue asks for, each in a menu only where it applies", () => {
    for (const id of [...WRITING, "llmPatch.checkClipboard", "llmPatch.openClipboardAsReply", "llmPatch.showLastReport"]) {
      assert.ok(commandIds.includes(id), id);
    }
    const entries = menuEntries();
    for (const e of entries) {
      assert.ok(commandIds.includes(e.command), `${e.menu} lists unknown ${e.command}`);
      assert.ok(e.when, `${e.menu} › ${e.command} has no when clause`);
    }
    const find = (menu: string, command: string) => entries.find((e) => e.menu === menu && e.command === command);
    assert.match(find("editor/context", "llmPatch.applySelection")?.when ?? "", /editorHasSelection/);
    assert.match(find("editor/context", "llmPatch.previewSelection")?.when ?? "", /editorHasSelection/);
    assert.match(find("editor/title", "llmPatch.applyReply")?.when ?? "", /resourceLangId == llm-reply/);
    assert.equal(find("editor/title", "llmPatch.applyReply")?.group, "navigation@1", "a button, not a ··· entry");
    assert.ok(contributes.commands.find((c: { command: string }) => c.command === "llmPatch.applyReply").icon);
    const explorer = find("explorer/context", "llmPatch.applyPatchFile")?.when ?? "";
    for (const part of ["resourceExtname == .patch", "resourceExtname == .diff", "\\.llm\\.md$", "!explorerResourceIsFolder"]) {
      assert.ok(explorer.includes(part), `${part} in ${explorer}`);
    }
  });

  it("binds keys to Apply from Clipboard and Apply Selection", () => {
    const keys = contributes.keybindings as { command: string; key: string; mac: string; when: string }[];
    const byCommand = new Map(keys.map((k) => [k.command, k]));
    assert.ok(byCommand.get("llmPatch.applyFromClipboard")?.key);
    assert.match(byCommand.get("llmPatch.applySelection")?.when ?? "", /editorHasSelection/);
    for (const k of keys) {
      assert.ok(k.mac, `${k.command} has a macOS key`);
    }
  });

  it("works read-only in untrusted workspaces: writing commands need trust everywhere they appear", () => {
    const trust = manifest.capabilities.untrustedWorkspaces;
    assert.equal(trust.supported, "limited");
    assert.deepEqual(trust.restrictedConfigurations.sort(), [
      "llmPatch.server.args",
      "llmPatch.server.installSource",
      "llmPatch.server.interpreter",
      "llmPatch.server.path",
    ]);
    const places = [...menuEntries(), ...contributes.keybindings];
    for (const id of WRITING) {
      const palette = menuEntries().find((e) => e.menu === "commandPalette" && e.command === id);
      assert.match(palette?.when ?? "", /isWorkspaceTrusted/, `${id} in the palette`);
      for (const p of places.filter((e: { command: string }) => e.command === id)) {
        assert.match(p.when ?? "", /isWorkspaceTrusted/, `${id}: ${JSON.stringify(p)}`);
      }
    }
  });

  it("has an icon (a PNG in the package) and a repository", () => {
    const icon = readFileSync(path.join(root, manifest.icon));
    assert.deepEqual([...icon.subarray(1, 4)].map((c) => String.fromCharCode(c)).join(""), "PNG");
    assert.ok(icon.readUInt32BE(16) >= 128, "the Marketplace wants at least 128 px");
    assert.match(manifest.repository.url, /^https:\/\//);
    const ignore = readFileSync(path.join(root, ".vscodeignore"), "utf8");
    for (const kept of ["!icon.png", "!server/*.whl", "!syntaxes/*.json", "!language-configuration.json"]) {
      assert.ok(ignore.split("\n").includes(kept), `.vscodeignore keeps ${kept} out of the ignore list`);
    }
  });
});
