"""Discounts applied at checkout."""


def apply_discount(total_cents: int, percent: int) -> int:
    return total_cents - total_cents * percent // 100


def format_price(cents: int) -> str:
    return f"${cents / 100:.2f}"
