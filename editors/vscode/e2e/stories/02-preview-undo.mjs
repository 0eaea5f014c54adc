/** The refactor preview, VS Code's own undo and Undo Last Patch. */
import { assert } from "../lib/vscode.mjs";
import { TWO_FILES } from "../lib/replies.mjs";

const NEW_ADD = 'raise ValueError("quantity must be positive")';
const NEW_DISCOUNT = 'raise ValueError("percent must be between 0 and 100")';

export const stories = [
  {
    name: "preview: untick a file, apply the rest",
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(TWO_FILES);
      await vs.command("LLM Patch: Preview from Clipboard");
      await vs.waitPreview();
      const rows = await vs.previewRows();
      const files = rows.filter((r) => /cart\.py|pricing\.py/.test(r.text) && r.checked !== undefined);
      assert.ok(files.length >= 2, `both files are in the preview: ${JSON.stringify(rows)}`);
      // Both files are ticked when the preview opens: Apply applies what it shows.
      assert.ok(files.every((r) => r.checked), `every file starts ticked: ${JSON.stringify(rows)}`);
      await vs.togglePreviewRow("pricing.py");
      const after = await vs.previewRows();
      assert.equal(after.find((r) => r.text.includes("pricing.py"))?.checked, false, JSON.stringify(after));
      await vs.previewButton("Apply");
      const toast = await vs.toast(/LLM Patch: /);
      assert.doesNotMatch(toast, /STALE_VERSION/);
      assert.match(toast, /left out|1 of 2|pricing\.py/, "the report says pricing.py was left out");
      await vs.open("shop/cart.py");
      assert.ok((await vs.editorText()).includes(NEW_ADD), "the ticked file is applied");
      await vs.open("shop/pricing.py");
      assert.equal(await vs.editorText(), vs.original("shop/pricing.py"), "the unticked file is not");
    },
  },
  {
    name: "preview: discard changes nothing",
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(TWO_FILES);
      await vs.command("LLM Patch: Preview from Clipboard");
      await vs.waitPreview();
      await vs.previewButton("Discard");
      await vs.waitFor("the preview to close", async () => (await vs.previewRows()).length === 0);
      assert.equal(await vs.editorText(), vs.original("shop/cart.py"));
      assert.deepEqual((await vs.tabs()).filter((t) => t.dirty), []);
      assert.equal(vs.gitStatus(), "");
    },
  },
  {
    name: "one Ctrl+Z undoes a two-file patch",
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(TWO_FILES);
      await vs.command("LLM Patch: Apply from Clipboard");
      await vs.toast(/LLM Patch: applied 2 edits in 2 files/);
      assert.ok((await vs.editorText()).includes(NEW_ADD));
      await vs.clearToasts();
      await vs.focusEditor();
      await vs.press("Control+z");
      // VS Code asks whether to undo in every file the edit touched.
      await vs.dialogButton(/Undo in 2 Files/).catch(() => undefined);
      await vs.waitFor("cart.py to be undone", async () => (await vs.editorText()) === vs.original("shop/cart.py"));
      await vs.open("shop/pricing.py");
      assert.equal(await vs.editorText(), vs.original("shop/pricing.py"), "pricing.py is undone by the same Ctrl+Z");
      assert.equal(vs.gitStatus(), "");
    },
  },
  {
    name: "Undo Last Patch puts every file back and says so",
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(TWO_FILES);
      await vs.command("LLM Patch: Apply from Clipboard");
      await vs.toast(/LLM Patch: applied 2 edits in 2 files/);
      await vs.clearToasts();
      await vs.command("LLM Patch: Undo Last Patch");
      await vs.toast(/LLM Patch: undid the last patch in 2 files/);
      assert.equal(await vs.editorText(), vs.original("shop/cart.py"));
      await vs.open("shop/pricing.py");
      assert.equal(await vs.editorText(), vs.original("shop/pricing.py"));
      // Back to the saved text: nothing is left marked modified.
      await vs.waitFor("no modified tab", async () => (await vs.tabs()).every((t) => !t.dirty), 5000);
      // The status bar no longer shows the undone patch's result.
      const status = await vs.status();
      assert.doesNotMatch(status.text, /✓ 2 edits/, JSON.stringify(status));
      assert.equal(vs.gitStatus(), "");
      await vs.command("LLM Patch: Undo Last Patch");
      await vs.toast(/no patch to undo/);
    },
  },
];
