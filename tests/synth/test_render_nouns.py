"""A reference ("that account number") replaces the template's noun before it, never repeats it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gym_mcp.servers import BUNDLED
from gym_mcp.synth.render import render
from tests.synth.conftest import Seed0

DOUBLED = re.compile(r"\b(\w+) that \1\b")  # "account that account number", "passport that passport"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize(
    ("template", "arguments", "refs", "expected"),
    [
        (  # the whole two-word noun goes, not only its last word
            "Add {payee_name} as a payee of customer {customer_id} with account number {account_number}[ at {bank_name}]",
            {"payee_name": "Hana Chen", "customer_id": "CUS-1058", "bank_name": "Coastal Savings Bank"},
            {"account_number": "that account number"},
            "Add Hana Chen as a payee of customer CUS-1058 with that account number at Coastal Savings Bank",
        ),
        (
            "Pay payment request {payment_request_id} from wallet {wallet_id}",
            {"wallet_id": "WAL-1"},
            {"payment_request_id": "that payment request"},
            "Pay that payment request from wallet WAL-1",
        ),
        (  # the template says only the first word of the noun
            "Record passport {passport_number} issued by {country}",
            {"country": "France"},
            {"passport_number": "that passport number"},
            "Record that passport number issued by France",
        ),
        (  # one-word nouns as before
            "Deposit ${amount} into account {account_id}",
            {"amount": 5},
            {"account_id": "that account"},
            "Deposit $5 into that account",
        ),
        (  # an optional segment holding a reference is kept, not dropped with its placeholder
            "List the[ {status}] transfers[ of store {store_id}]",
            {},
            {"store_id": "that store"},
            "List the transfers of that store",
        ),
        (  # a noun that is not the reference's stays
            "Move it to folder {folder_id}",
            {},
            {"folder_id": "that label"},
            "Move it to folder that label",
        ),
    ],
)
def test_a_reference_takes_the_place_of_the_noun_before_it(
    template: str, arguments: dict[str, object], refs: dict[str, str], expected: str
) -> None:
    assert render(template, arguments, refs) == expected


@pytest.mark.parametrize("server", sorted(BUNDLED))
def test_no_synthesized_instruction_repeats_a_noun_around_that(server: str, seed0_tasks: Seed0) -> None:
    tasks = seed0_tasks(server, 30)
    assert len(tasks) == 30
    doubled = {t.id: t.instruction for t in tasks if DOUBLED.search(t.instruction)}
    assert not doubled
