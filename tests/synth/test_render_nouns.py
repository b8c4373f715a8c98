"""A reference ("that account number") replaces the template's noun before it, never repeats it.

The same rule over every bundled server's synthesized requests is checked beside the reference
rule (`tests/synth/test_render_references.py`), which reads the same batches.
"""

from __future__ import annotations

import pytest

from gym_mcp.synth.render import render


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
