/** Replies the stories paste or open, written against examples/shop. */
const lines = (...l) => l.join("\n") + "\n";

export const CART_BLOCK = lines(
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
);

export const PRICING_BLOCK = lines(
  "shop/pricing.py",
  "```python",
  "<<<<<<< SEARCH",
  "def apply_discount(total_cents: int, percent: int) -> int:",
  "    return total_cents - total_cents * percent // 100",
  "=======",
  "def apply_discount(total_cents: int, percent: int) -> int:",
  "    if not 0 <= percent <= 100:",
  '        raise ValueError("percent must be between 0 and 100")',
  "    return total_cents - total_cents * percent // 100",
  ">>>>>>> REPLACE",
  "```",
);

/** Two files in one reply, with prose around the blocks as a model writes it. */
export const TWO_FILES = lines(
  "Here are both changes.",
  "",
  CART_BLOCK,
  "And the discount guard:",
  "",
  PRICING_BLOCK,
  "That's all.",
);

/** A block whose SEARCH text is nowhere in the file (the model misremembered it). */
export const FAILING_BLOCK = lines(
  "shop/cart.py",
  "```python",
  "<<<<<<< SEARCH",
  "    def checkout(self, coupon: str) -> int:",
  "        return self.total_cents() - COUPONS[coupon]",
  "=======",
  "    def checkout(self, coupon: str) -> int:",
  "        return max(0, self.total_cents() - COUPONS.get(coupon, 0))",
  ">>>>>>> REPLACE",
  "```",
);

/** A V4A patch that moves pricing.py (and edits it), creates one file and deletes another. */
export const MOVE_CREATE_DELETE = lines(
  "*** Begin Patch",
  "*** Update File: shop/pricing.py",
  "*** Move to: shop/prices.py",
  "@@",
  ' """Discounts applied at checkout."""',
  "+",
  "+CURRENCY = \"USD\"",
  "*** Add File: shop/tax.py",
  "+def with_tax(cents: int) -> int:",
  "+    return cents * 120 // 100",
  "*** Delete File: shop/legacy.py",
  "*** End Patch",
);

/** A V4A patch that moves pricing.py, with one line added at the end (issue 24, item 1). */
export const MOVE_ONLY = lines(
  "*** Begin Patch",
  "*** Update File: shop/pricing.py",
  "*** Move to: shop/prices.py",
  "@@",
  " def format_price(cents: int) -> str:",
  '     return f"${cents / 100:.2f}"',
  "+",
  "+",
  "+ZERO = format_price(0)",
  "*** End Patch",
);

export const LEGACY = 'def old_total(items):\n    return sum(i.price_cents for i in items)\n';
