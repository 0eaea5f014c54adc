/** Failing blocks, moves, creates and deletes. */
import { assert } from "../lib/vscode.mjs";
import { CART_BLOCK, FAILING_BLOCK, LEGACY, MOVE_CREATE_DELETE, MOVE_ONLY } from "../lib/replies.mjs";

export const stories = [
  {
    name: "a failing block: diagnostic, lens and quick fixes",
    files: { "notes.llm.md": `Two changes.\n\n${FAILING_BLOCK}\n${CART_BLOCK}` },
    async run(vs) {
      await vs.open("notes.llm.md");
      await vs.waitFor("the lenses", async () => {
        const l = await vs.lenses();
        return l.some((x) => x.startsWith("✗ TEXT_NOT_FOUND")) && l.some((x) => x.startsWith("✓ shop/cart.py"));
      }, 30000);
      const problems = await vs.problems();
      assert.ok(problems.some((p) => /shop\/cart\.py: the text was not found/.test(p)), `the Problems panel names the failure: ${JSON.stringify(problems)}`);
      // At the failing block, the lightbulb offers to apply the rest.
      await vs.open("notes.llm.md");
      await vs.gotoLine(6);
      const actions = await vs.codeActions();
      assert.ok(actions.some((a) => a.includes("Apply 1 of 2 edits (skip the failing ones)")), JSON.stringify(actions));
      await vs.pickCodeAction("Apply 1 of 2 edits (skip the failing ones)");
      await vs.toast(/LLM Patch: .*applied 1 edit/);
      await vs.open("shop/cart.py");
      assert.ok((await vs.editorText()).includes('raise ValueError("quantity must be positive")'));
      assert.equal(vs.gitStatus(), "");
    },
  },
  {
    name: "a reply that moves, creates and deletes",
    files: { "shop/legacy.py": LEGACY },
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(MOVE_CREATE_DELETE);
      await vs.command("LLM Patch: Apply from Clipboard");
      const toast = await vs.toast(/LLM Patch: applied/);
      // The notification names every file, the move and the delete included.
      for (const name of ["prices.py", "tax.py", "legacy.py"]) assert.ok(toast.includes(name), `${name} in: ${toast}`);
      await vs.command("File: Save All Files");
      await vs.waitFor("the patch on disk", () => vs.disk("shop/prices.py")?.includes('CURRENCY = "USD"'));
      assert.equal(vs.disk("shop/pricing.py"), null, "pricing.py is moved away");
      assert.ok(vs.disk("shop/prices.py").includes("def apply_discount"), "the moved file keeps its text");
      assert.equal(vs.disk("shop/tax.py"), "def with_tax(cents: int) -> int:\n    return cents * 120 // 100\n");
      assert.equal(vs.disk("shop/legacy.py"), null, "legacy.py is deleted");
    },
  },
  {
    name: "a delete of a file with unsaved work: asked once",
    // The server asked (a notification with Go ahead / Cancel) and then the extension asked
    // again (a modal): the extension declares that it asks, and the server no longer does.
    files: { "shop/legacy.py": LEGACY },
    async run(vs) {
      await vs.open("shop/legacy.py");
      await vs.press("Control+End");
      await vs.type("# unsaved note\n");
      await vs.setClipboard("```\n*** Begin Patch\n*** Delete File: shop/legacy.py\n*** End Patch\n```\n");
      await vs.command("LLM Patch: Apply from Clipboard");
      await vs.waitFor("the extension's question (a modal dialog)", async () => (await vs.dialogText()).includes("unsaved changes"), 30000);
      const asked = (await vs.toasts()).filter((t) => /Go ahead|unsaved changes/.test(t));
      assert.deepEqual(asked, [], "the server asked too");
      await vs.dialogButton(/Apply and Discard/);
      await vs.toast(/LLM Patch: .*applied/);
      await vs.waitFor("legacy.py deleted", () => vs.disk("shop/legacy.py") === null);
      assert.deepEqual((await vs.toasts()).filter((t) => /Go ahead/.test(t)), [], "no second question after the first");
    },
  },
  {
    name: "a move, Undo Last Patch, the same move again",
    // VS Code 1.96 keeps a document open for the moved file's new path after the move back
    // (seen with no extension opening it); the server must not take it for the file.
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(MOVE_ONLY);
      await vs.command("LLM Patch: Apply from Clipboard");
      await vs.toast(/LLM Patch: applied/);
      await vs.waitFor("the move on disk", () => vs.disk("shop/prices.py") !== null && vs.disk("shop/pricing.py") === null);
      await vs.clearToasts();
      await vs.command("LLM Patch: Undo Last Patch");
      await vs.toast(/undid the last patch/);
      await vs.waitFor("the move undone on disk", () => vs.disk("shop/pricing.py") !== null && vs.disk("shop/prices.py") === null);
      await vs.clearToasts();
      await vs.open("shop/cart.py");
      await vs.command("LLM Patch: Apply from Clipboard");
      const again = await vs.toast(/LLM Patch: /);
      assert.doesNotMatch(again, /delet/i, `the second apply is a move, not a delete: ${again}`);
      await vs.command("File: Save All Files");
      await vs.waitFor("the move on disk again", () => vs.disk("shop/prices.py") !== null && vs.disk("shop/pricing.py") === null, 10000);
      assert.equal(vs.disk("shop/prices.py"), `${vs.original("shop/pricing.py")}\n\nZERO = format_price(0)\n`, "prices.py holds pricing.py's text, edited");
    },
  },
];
