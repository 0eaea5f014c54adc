"""A tiny shopping cart, used by the llm-patch quick start."""

from dataclasses import dataclass, field


@dataclass
class Item:
    name: str
    price_cents: int
    quantity: int = 1


@dataclass
class Cart:
    items: list[Item] = field(default_factory=list)

    def add(self, item: Item) -> None:
        self.items.append(item)

    def total_cents(self) -> int:
        total = 0
        for item in self.items:
            total += item.price_cents * item.quantity
        return total

    def remove(self, name: str) -> None:
        self.items = [item for item in self.items if item.name != name]
