/** A new user: no server anywhere, and a workspace that is not trusted yet. */
import { assert } from "../lib/vscode.mjs";
import { CART_BLOCK } from "../lib/replies.mjs";

export const stories = [
  {
    name: "Restricted Mode: checks work, applying waits for trust",
    trusted: false,
    files: { "notes.llm.md": CART_BLOCK },
    async run(vs) {
      await vs.open("shop/cart.py");
      const rows = await vs.paletteRows("LLM Patch: ");
      assert.ok(rows.some((r) => r.startsWith("LLM Patch: Check Clipboard")), JSON.stringify(rows));
      assert.ok(!rows.some((r) => r.startsWith("LLM Patch: Apply from Clipboard")), `no apply in Restricted Mode: ${JSON.stringify(rows)}`);
      await vs.setClipboard(CART_BLOCK);
      // The apply key does nothing but say why.
      await vs.press("Control+Alt+Shift+V");
      await vs.command("LLM Patch: Check Clipboard");
      await vs.toast(/LLM Patch: .*1 edit/);
      await vs.open("notes.llm.md");
      await vs.waitFor("the lens in Restricted Mode", async () => (await vs.lenses()).some((l) => l.startsWith("✓ shop/cart.py")), 30000);
      await vs.open("shop/cart.py");
      assert.equal(await vs.editorText(), vs.original("shop/cart.py"));
      assert.equal(vs.gitStatus(), "");
      // Trusting the folder turns applying on, without a reload.
      await vs.trustFolder();
      await vs.clearToasts();
      await vs.open("shop/cart.py");
      await vs.command("LLM Patch: Apply from Clipboard");
      await vs.toast(/LLM Patch: applied 1 edit in 1 file/, 30000);
      assert.ok((await vs.editorText()).includes('raise ValueError("quantity must be positive")'));
    },
  },
  {
    name: "first run: install the server, then the command runs",
    server: false,
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(CART_BLOCK);
      await vs.command("LLM Patch: Apply from Clipboard");
      await vs.clickToast(/server was not found/, "Install llm-patch");
      // pip installs the wheel the .vsix carries, with its dependencies from the index.
      await vs.toast(/LLM Patch: applied 1 edit in 1 file/, 150000);
      assert.ok((await vs.editorText()).includes('raise ValueError("quantity must be positive")'));
      assert.match(vs.extensionLog(), /Installed .*llm_patch-.*\.whl/);
    },
  },
];
