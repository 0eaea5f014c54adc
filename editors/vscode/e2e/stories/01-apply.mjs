import { assert } from "../lib/vscode.mjs";

const CART_REPLY = [
  "shop/cart.py",
  "```python",
  "<<<<<<< SEARCH",
  "    def add(self, item: Item) -> None:",
  "        self.items.append(item)",
  "=======",
  "    def add(self, item: Item) -> None:",
  "        if item.quantity <= 0:",
  '            raise ValueError("quantity must be positive")',
  "        self.items.append(item)",
  ">>>>>>> REPLACE",
  "```",
  "",
].join("\n");

export const stories = [
  {
    name: "apply from clipboard",
    async run(vs) {
      await vs.open("shop/cart.py");
      await vs.setClipboard(CART_REPLY);
      await vs.command("LLM Patch: Apply from Clipboard");
      const toast = await vs.toast(/LLM Patch: applied/);
      console.log(toast, await vs.status(), await vs.tabs());
      const text = await vs.editorText();
      assert.match(text, /quantity must be positive/);
      assert.equal(vs.gitStatus(), "", "nothing is written to disk before the user saves");
    },
  },
];
