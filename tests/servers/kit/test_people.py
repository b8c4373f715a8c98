"""The kit's people helpers: names drawn from a server's pools, addresses numbered while taken."""

from __future__ import annotations

import random

from gym_mcp.servers.kit import NamePool, unique_email, unique_name


def test_unique_email_numbers_a_taken_address_after_the_name() -> None:
    taken: set[str] = set()
    got = [unique_email("Ava", "Kim", "Mail.example", taken) for _ in range(3)]
    assert got == ["ava.kim@mail.example", "ava.kim2@mail.example", "ava.kim3@mail.example"]
    assert taken == set(got)


def test_unique_name_skips_every_number_taken() -> None:
    taken = {"ava_kim", "ava_kim2", "ava_kim4"}
    assert unique_name("Ava_Kim", taken) == "ava_kim3"
    assert unique_name("Ava_Kim", taken) == "ava_kim5"
    assert unique_name("Noah_Lee", taken) == "noah_lee"


def test_draw_takes_the_first_name_then_the_last_from_the_rng() -> None:
    pool = NamePool(("Ava", "Noah", "Mia"), ("Kim", "Lee"))
    rng, same = random.Random(3), random.Random(3)
    for _ in range(20):
        assert pool.draw(rng) == (same.choice(pool.first), same.choice(pool.last))


def test_draw_new_draws_again_until_the_pair_is_new() -> None:
    pool = NamePool(("Ava", "Noah"), ("Kim", "Lee"))
    rng, same = random.Random(0), random.Random(0)
    taken: set[tuple[str, str]] = set()
    pairs = [pool.draw_new(rng, taken) for _ in range(4)]
    assert sorted(pairs) == sorted((f, last) for f in pool.first for last in pool.last)
    assert taken == set(pairs)
    expected: list[tuple[str, str]] = []  # the loop the servers wrote before: draw, skip a pair seen
    while len(expected) < 4:
        pair = (same.choice(pool.first), same.choice(pool.last))
        if pair not in expected:
            expected.append(pair)
    assert pairs == expected
    assert rng.random() == same.random()  # both drew the same number of times
