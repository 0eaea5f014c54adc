/** The five ways to apply a reply: clipboard, selection, lightbulb, code lens, Explorer. */
import { assert } from "../lib/vscode.mjs";
import { CART_BLOCK, PRICING_BLOCK, TWO_FILES } from "../lib/replies.mjs";

const NEW_ADD = 'raise ValueError("quantity must be positive")';
const NEW_DISCOUNT = 'raise ValueError("percent must be between 0 and 100")';

export const stories = [
  {
    name: "apply from clipboard",
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(CART_BLOCK);
      await vs.command("LLM Patch: Apply from Clipboard");
      const toast = await vs.toast(/LLM Patch: applied 1 edit in 1 file/);
      assert.match(toast, /shop\/cart\.py/);
      assert.match((await vs.status()).text, /✓ 1 edit/);
      assert.deepEqual((await vs.tabs()).map((t) => [t.name, t.dirty]), [["cart.py", true]]);
      assert.ok((await vs.editorText()).includes(NEW_ADD));
      assert.equal(vs.gitStatus(), "", "nothing reaches the disk before the user saves");
      await vs.command("File: Save");
      await vs.waitFor("cart.py saved", () => vs.disk("shop/cart.py").includes(NEW_ADD));
      // The report, rendered (Markdown preview), from the status bar item.
      await vs.command("LLM Patch: Show Last Report");
      await vs.waitFor("the report's preview", async () => (await vs.tabs()).some((t) => /^Preview LLM Patch Report/.test(t.name)));
    },
  },
  {
    name: "apply with auto save on",
    settings: { "files.autoSave": "afterDelay", "files.autoSaveDelay": 500 },
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(CART_BLOCK);
      await vs.command("LLM Patch: Apply from Clipboard");
      const toast = await vs.toast(/LLM Patch: applied 1 edit in 1 file/);
      assert.doesNotMatch(toast, /not saved yet/, "auto save saves it");
      await vs.waitFor("auto save", () => vs.disk("shop/cart.py").includes(NEW_ADD));
    },
  },
  {
    name: "apply selection",
    async run(vs) {
      // The reply is pasted into an untitled editor; only the second block is selected.
      await vs.newUntitled(TWO_FILES);
      const text = await vs.editorText();
      const lines = text.split("\n");
      const first = lines.indexOf("shop/pricing.py") + 1;
      const last = lines.lastIndexOf("```") + 1;
      await vs.selectLines(first, last);
      await vs.command("LLM Patch: Apply Selection");
      await vs.toast(/LLM Patch: applied 1 edit in 1 file/);
      await vs.open("shop/pricing.py");
      assert.ok((await vs.editorText()).includes(NEW_DISCOUNT));
      await vs.open("shop/cart.py");
      assert.equal(await vs.editorText(), vs.original("shop/cart.py"), "the block outside the selection is not applied");
      assert.equal(vs.gitStatus(), "");
    },
  },
  {
    name: "apply from the lightbulb (merge-conflict lenses off, as the README says)",
    files: { "notes.llm.md": TWO_FILES },
    settings: { "merge-conflict.codeLens.enabled": false, "merge-conflict.decorators.enabled": false },
    async run(vs) {
      await vs.open("notes.llm.md");
      await vs.waitFor("the reply's code lenses", async () => (await vs.lenses()).filter((l) => l.startsWith("✓")).length === 2, 30000);
      assert.ok(!(await vs.lenses()).some((l) => l.includes("Accept Current Change")), "the documented settings hide VS Code's conflict lenses");
      await vs.gotoLine(5);
      const actions = await vs.codeActions();
      assert.ok(actions.some((a) => a.startsWith("Apply LLM patch (2 edits in 2 files)")), JSON.stringify(actions));
      await vs.pickCodeAction("Apply LLM patch (2 edits in 2 files)");
      await vs.toast(/LLM Patch: applied 2 edits in 2 files/);
      await vs.open("shop/cart.py");
      assert.ok((await vs.editorText()).includes(NEW_ADD));
      await vs.open("shop/pricing.py");
      assert.ok((await vs.editorText()).includes(NEW_DISCOUNT));
    },
  },
  {
    name: "apply one block from its code lens",
    files: { "notes.llm.md": TWO_FILES },
    async run(vs) {
      await vs.open("notes.llm.md");
      await vs.waitFor("the reply's code lenses", async () => (await vs.lenses()).filter((l) => l.startsWith("✓")).length === 2, 30000);
      const lenses = await vs.lenses();
      assert.ok(lenses.some((l) => /^✓ shop\/pricing\.py:\d+ \(exact\)/.test(l)), JSON.stringify(lenses));
      await vs.clickLens(/^✓ shop\/pricing\.py/);
      await vs.toast(/LLM Patch: applied 1 edit in 1 file/);
      assert.equal(vs.gitStatus(), "");
      await vs.open("shop/cart.py");
      assert.equal(await vs.editorText(), vs.original("shop/cart.py"), "only the clicked block lands");
      await vs.open("shop/pricing.py");
      assert.ok((await vs.editorText()).includes(NEW_DISCOUNT));
      // The applied block now says so on its lens.
      await vs.open("notes.llm.md");
      await vs.waitFor("the lens to say already applied", async () => (await vs.lenses()).some((l) => /pricing\.py.*already applied/.test(l)));
    },
  },
  {
    name: "apply a patch file from the Explorer",
    files: { "fix.patch": [
      "--- a/shop/pricing.py",
      "+++ b/shop/pricing.py",
      "@@ -3,4 +3,6 @@",
      " ",
      " def apply_discount(total_cents: int, percent: int) -> int:",
      "+    if not 0 <= percent <= 100:",
      '+        raise ValueError("percent must be between 0 and 100")',
      "     return total_cents - total_cents * percent // 100",
      "",
    ].join("\n") },
    async run(vs) {
      await vs.explorerMenu("fix.patch", "Apply Patch File");
      await vs.toast(/LLM Patch: applied 1 edit in 1 file/);
      await vs.open("shop/pricing.py");
      assert.ok((await vs.editorText()).includes(NEW_DISCOUNT));
      assert.equal(vs.gitStatus(), "");
    },
  },
];
