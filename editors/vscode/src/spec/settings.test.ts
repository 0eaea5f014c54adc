import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import { CLIENT_SETTINGS, commandArguments, SERVER_SETTINGS, serverSettings } from "../settings";

// out/spec/settings.test.js → editors/vscode/package.json
const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
const properties: Record<string, any> = manifest.contributes.configuration.properties;

describe("contributed settings", () => {
  it("contributes every server setting with the server's default and a description", () => {
    for (const spec of SERVER_SETTINGS) {
      const prop = properties[`llmPatch.${spec.key}`];
      assert.ok(prop, `llmPatch.${spec.key} is not contributed`);
      assert.deepEqual(prop.default, spec.default, `default of llmPatch.${spec.key}`);
      assert.equal(prop.type, Array.isArray(spec.default) ? "array" : typeof spec.default);
      assert.ok((prop.markdownDescription ?? prop.description ?? "").length > 30, `description of ${spec.key}`);
    }
  });

  it("contributes nothing else but the client's own settings", () => {
    const known = new Set([...SERVER_SETTINGS.map((s) => `llmPatch.${s.key}`), ...CLIENT_SETTINGS.map((k) => `llmPatch.${k}`)]);
    assert.deepEqual(Object.keys(properties).filter((k) => !known.has(k)), []);
    for (const key of CLIENT_SETTINGS) {
      assert.ok(properties[`llmPatch.${key}`], `llmPatch.${key}`);
    }
  });

  it("offers mode as exactly unrestricted | restricted", () => {
    assert.deepEqual(properties["llmPatch.mode"].enum, ["unrestricted", "restricted"]);
  });

  it("targets the VS Code the language client needs, and types no newer than it", () => {
    const client = JSON.parse(
      readFileSync(path.join(__dirname, "..", "..", "node_modules", "vscode-languageclient", "package.json"), "utf8"),
    );
    assert.equal(manifest.engines.vscode, client.engines.vscode);
    const types = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "node_modules", "@types", "vscode", "package.json"), "utf8"));
    const [tMajor, tMinor] = types.version.split(".").map(Number);
    const [eMajor, eMinor] = manifest.engines.vscode.replace(/^\^/, "").split(".").map(Number);
    assert.ok(tMajor < eMajor || (tMajor === eMajor && tMinor <= eMinor), `@types/vscode ${types.version} > engines`);
  });
});

describe("serverSettings", () => {
  it("reads each setting, replacing a wrongly typed value by the default", () => {
    const values: Record<string, unknown> = {
      atomic: false,
      fuzzyThreshold: "high",
      mode: "restricted",
      replyFiles: ["*.chat.md", 3],
      diagnosticsDelay: 50,
    };
    assert.deepEqual(serverSettings((k) => values[k]), {
      atomic: false,
      confirmFuzzy: true,
      alwaysPreview: false,
      fuzzyThreshold: 0.8,
      mode: "restricted",
      logLevel: "info",
      diagnostics: true,
      diagnosticsDelay: 50,
      codeLens: true,
      replyFiles: ["*.llm.md", "*.patch", "*.diff"],
      protectedPaths: [],
      startupMessage: true,
    });
  });
});

describe("commandArguments", () => {
  it("sends options only when one is set", () => {
    assert.deepEqual(commandArguments({ text: "x" }), [{ text: "x" }]);
    assert.deepEqual(commandArguments({ text: "x" }, { partial: false, preview: false }), [{ text: "x" }]);
    assert.deepEqual(commandArguments({ uri: "file:///r.md" }, { preview: true }), [{ uri: "file:///r.md" }, { preview: true }]);
    assert.deepEqual(commandArguments({ text: "x" }, { partial: true, preview: true }), [{ text: "x" }, { partial: true, preview: true }]);
  });
});
