"""People for seed data: names drawn from a server's name pools, and addresses made unique.

Most servers seed people (customers, users, drivers) the same way: a first and a last name drawn
from the server's pools, then an email address or handle made from them, numbered when taken
(``ava.kim@x``, ``ava.kim2@x``); or a name drawn again until it is one not seen yet. The pools
stay each server's own: `random.Random.choice` depends on a pool's length and order, so merging
two servers' pools would change their seed data (and every task made from it).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["NamePool", "unique_email", "unique_name"]


class NamePool:
    """A server's first and last names, and the draws its seed data makes from them.

    Args:
        first: The first names, in a fixed order.
        last: The last names, in a fixed order.
    """

    def __init__(self, first: Sequence[str], last: Sequence[str]) -> None:
        self.first = first
        self.last = last

    def draw(self, rng: random.Random) -> tuple[str, str]:
        """A (first, last) name pair: two draws from ``rng``, the first name's first."""
        return rng.choice(self.first), rng.choice(self.last)

    def draw_new(self, rng: random.Random, taken: set[tuple[str, str]]) -> tuple[str, str]:
        """A pair not in ``taken``, drawn again until it is one; it joins ``taken``.

        Args:
            rng: The seed data's only source of randomness.
            taken: The pairs drawn so far (updated).

        Returns:
            The new (first, last) pair.
        """
        while True:
            pair = self.draw(rng)
            if pair not in taken:
                taken.add(pair)
                return pair


def unique_name(stem: str, taken: set[str], suffix: str = "") -> str:
    """``stem + suffix`` in lower case, numbered after the stem (2, 3, ...) while it is taken.

    Args:
        stem: The part a number follows, e.g. ``"Ava.Kim"``.
        taken: The names given so far (updated with the one returned).
        suffix: What comes after the number, e.g. ``"@mail.example"``.

    Returns:
        The first of ``ava.kim@mail.example``, ``ava.kim2@mail.example``, ... not in ``taken``.
    """
    name, n = f"{stem}{suffix}".lower(), 2
    while name in taken:
        name, n = f"{stem}{n}{suffix}".lower(), n + 1
    taken.add(name)
    return name


def unique_email(first: str, last: str, domain: str, taken: set[str]) -> str:
    """``first.last@domain`` in lower case, numbered (``first.last2@domain``, ...) while it is taken.

    Args:
        first: First name.
        last: Last name.
        domain: The address's domain.
        taken: The addresses given so far (updated with the one returned).

    Returns:
        The address.
    """
    return unique_name(f"{first}.{last}", taken, f"@{domain}")
