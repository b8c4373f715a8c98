"""Checking call arguments against a tool's JSON schema (`check_arguments`)."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import Tool
from pydantic import BaseModel, Field

from gym_mcp import BundledSource
from gym_mcp.actions import schema as schema_module
from gym_mcp.actions.schema import check_arguments, openai_tools

DEPOSIT = {
    "type": "object",
    "properties": {
        "account_id": {"type": "string", "pattern": "^ACC-[0-9]{4}$"},
        "amount": {"type": "number", "minimum": 0.01, "maximum": 10000},
        "count": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
        "kind": {"type": "string", "enum": ["deposit", "refund"]},
        "memo": {"type": "string", "minLength": 2, "maxLength": 5},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2, "uniqueItems": True},
        "cents": {"type": "integer", "multipleOf": 5},
        "currency": {"const": "USD"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
    },
    "required": ["account_id", "amount"],
}
OK = {"account_id": "ACC-1001", "amount": 5.0}


def test_valid_arguments_pass() -> None:
    full = {
        **OK,
        "count": 3,
        "kind": "refund",
        "memo": "rent",
        "tags": ["a", "b"],
        "cents": 15,
        "currency": "USD",
        "note": None,
    }
    assert check_arguments(OK, DEPOSIT) is None
    assert check_arguments(full, DEPOSIT) is None
    assert check_arguments({**OK, "note": "hi"}, DEPOSIT) is None
    assert check_arguments({"anything": 1}, None) is None
    assert check_arguments({"anything": 1}, {}) is None


@pytest.mark.parametrize(
    ("arguments", "expect"),
    [
        ({**OK, "amount": 0}, "argument 'amount' must be >= 0.01, got 0"),
        ({**OK, "amount": 10000.5}, "argument 'amount' must be <= 10000, got 10000.5"),
        ({**OK, "count": 0}, "argument 'count' must be > 0, got 0"),
        ({**OK, "count": 10}, "argument 'count' must be < 10, got 10"),
        ({**OK, "account_id": "1001"}, "argument 'account_id' must match the pattern ^ACC-[0-9]{4}$, got \"1001\""),
        ({**OK, "kind": "bonus"}, 'argument \'kind\' must be one of "deposit", "refund", got "bonus"'),
        ({**OK, "memo": "x"}, "argument 'memo' must be at least 2 characters long, got 1"),
        ({**OK, "memo": "x" * 6}, "argument 'memo' must be at most 5 characters long, got 6"),
        ({**OK, "tags": []}, "argument 'tags' must have at least 1 item, got 0"),
        ({**OK, "tags": ["a", "b", "c"]}, "argument 'tags' must have at most 2 items, got 3"),
        ({**OK, "tags": ["a", "a"]}, "argument 'tags' must not repeat items"),
        ({**OK, "tags": ["a", 1]}, "argument 'tags'[1] must be a string, got 1"),
        ({**OK, "cents": 7}, "argument 'cents' must be a multiple of 5, got 7"),
        ({**OK, "currency": "EUR"}, "argument 'currency' must be \"USD\""),
        ({**OK, "note": 5}, "argument 'note' must be a string or null, got 5"),
    ],
)
def test_constraint_violations_are_caught(arguments: dict[str, Any], expect: str) -> None:
    assert check_arguments(arguments, DEPOSIT) == expect


@pytest.mark.parametrize(
    ("arguments", "expect"),
    [
        ({"account_id": 1001, "amount": 5}, "argument 'account_id' must be a string, got 1001"),
        ({**OK, "count": 1.0}, "argument 'count' must be an integer, got 1.0"),  # 1.0 is not an integer
        ({**OK, "count": True}, "argument 'count' must be an integer, got true"),
        ({**OK, "amount": True}, "argument 'amount' must be a number, got true"),  # nor is True a number
        ({**OK, "amount": "5"}, "argument 'amount' must be a number, got \"5\""),
        ({"amount": 5}, "missing required argument(s) 'account_id'"),
        ({}, "missing required argument(s) 'account_id', 'amount'"),
        ({**OK, "pin": 1}, "unknown argument(s) 'pin'; expected: account_id, amount, count, kind, memo, tags"),
    ],
)
def test_type_required_and_unknown_keys(arguments: dict[str, Any], expect: str) -> None:
    assert check_arguments(arguments, DEPOSIT).startswith(expect)  # type: ignore[union-attr]


def test_numbers_accept_ints_and_floats() -> None:
    assert check_arguments({**OK, "amount": 5}, DEPOSIT) is None
    assert check_arguments({**OK, "amount": 5.5}, DEPOSIT) is None
    assert check_arguments({**OK, "count": 5}, DEPOSIT) is None


def test_non_object_arguments() -> None:
    assert check_arguments(["ACC-1001"], DEPOSIT) == "arguments must be a JSON object, got list"
    assert check_arguments("x", None) == "arguments must be a JSON object, got str"


def test_first_problem_missing_then_unknown_then_values() -> None:
    assert check_arguments({"amount": -1, "pin": 1}, DEPOSIT) == "missing required argument(s) 'account_id'"
    assert check_arguments({**OK, "amount": -1, "pin": 1}, DEPOSIT).startswith("unknown argument(s) 'pin'")  # type: ignore[union-attr]


def test_unknown_keys_rule() -> None:
    open_object = {"type": "object"}  # no properties: anything goes
    no_props = {"type": "object", "properties": {}}  # an empty properties: anything goes too
    allowed = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": True}
    typed_extra = {"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
    closed = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    patterned = {"type": "object", "properties": {"a": {}}, "patternProperties": {"^x_": {"type": "string"}}}
    assert check_arguments({"z": 1}, open_object) is None
    assert check_arguments({"z": 1}, no_props) is None
    assert check_arguments({"a": 1, "z": 1}, allowed) is None
    assert check_arguments({"a": 1, "z": 1}, typed_extra) is None
    assert check_arguments({"a": 1, "z": "s"}, typed_extra) == "argument 'z' must be an integer, got \"s\""
    assert check_arguments({"a": 1, "z": 1}, closed) == "unknown argument(s) 'z'; expected: a"
    assert check_arguments({"a": 1, "x_y": "s"}, patterned) is None
    assert check_arguments({"a": 1, "z": 1}, patterned) == "unknown argument(s) 'z'; expected: a"


class Address(BaseModel):
    street: str
    zip_code: str = Field(pattern=r"^\d{5}$")


class Line(BaseModel):
    sku: str
    quantity: int = Field(ge=1, le=99)


class Order(BaseModel):
    lines: list[Line] = Field(min_length=1)
    ship_to: Address
    gift_to: Address | None = None


ORDER = Order.model_json_schema()  # pydantic puts Line and Address under $defs and points at them with $ref
GOOD_ORDER = {"lines": [{"sku": "A1", "quantity": 2}], "ship_to": {"street": "Main St 1", "zip_code": "12345"}}


def test_ref_and_defs_are_resolved() -> None:
    assert "$defs" in ORDER
    assert check_arguments(GOOD_ORDER, ORDER) is None
    bad_qty = {**GOOD_ORDER, "lines": [{"sku": "A1", "quantity": 0}]}
    assert check_arguments(bad_qty, ORDER) == "argument 'lines'[0].quantity must be >= 1, got 0"
    bad_zip = {**GOOD_ORDER, "ship_to": {"street": "x", "zip_code": "1234"}}
    assert (
        check_arguments(bad_zip, ORDER) == "argument 'ship_to'.zip_code must match the pattern ^\\d{5}$, got \"1234\""
    )
    missing = {**GOOD_ORDER, "ship_to": {"street": "x"}}
    assert check_arguments(missing, ORDER) == "missing required argument(s) 'zip_code' in argument 'ship_to'"
    extra = {**GOOD_ORDER, "ship_to": {"street": "x", "zip_code": "12345", "floor": 2}}
    assert check_arguments(extra, ORDER) == (
        "unknown argument(s) 'floor' in argument 'ship_to'; expected: street, zip_code"
    )
    # through anyOf [$ref, null]: the value is an object, so what is wrong inside it is named
    gift = {**GOOD_ORDER, "gift_to": {"street": "x", "zip_code": "abcde"}}
    assert check_arguments(gift, ORDER) == "argument 'gift_to'.zip_code must match the pattern ^\\d{5}$, got \"abcde\""
    assert check_arguments({**GOOD_ORDER, "gift_to": None}, ORDER) is None
    assert check_arguments({**GOOD_ORDER, "gift_to": 3}, ORDER) == "argument 'gift_to' must be an object or null, got 3"
    assert check_arguments({**GOOD_ORDER, "lines": []}, ORDER) == "argument 'lines' must have at least 1 item, got 0"


def test_draft_07_schemas_with_definitions() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"p": {"$ref": "#/definitions/P"}},
        "definitions": {"P": {"type": "integer", "minimum": 1}},
        "additionalProperties": False,
    }
    assert check_arguments({"p": 1}, schema) is None
    assert check_arguments({"p": 0}, schema) == "argument 'p' must be >= 1, got 0"
    assert check_arguments({"p": 1.0}, schema) == "argument 'p' must be an integer, got 1.0"


def test_schemas_that_cannot_be_applied_let_the_call_through() -> None:
    unknown_type = {"type": "object", "properties": {"a": {"type": "decimal"}}}
    dangling = {"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}
    remote = {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}}}
    assert check_arguments({"a": "1.5"}, unknown_type) is None
    assert check_arguments({"a": 1}, dangling) is None
    assert check_arguments({"a": 1}, remote) is None
    assert check_arguments({"b": 1}, unknown_type).startswith("unknown argument(s) 'b'")  # type: ignore[union-attr]


def test_one_of_means_exactly_one() -> None:
    schema = {"type": "object", "properties": {"v": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}}
    assert check_arguments({"v": -3}, schema) is None  # an integer, not >= 0: one fits
    assert check_arguments({"v": 0.5}, schema) is None
    assert check_arguments({"v": 3}, schema) == "argument 'v' fits more than one of the allowed forms"
    assert check_arguments({"v": -0.5}, schema) == "argument 'v' must be >= 0, got -0.5"


def test_validators_are_compiled_once_per_schema() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    check_arguments({"a": 1}, schema)
    compiled, quick = schema_module._compiled(schema)
    assert quick is not None
    check_arguments({"a": "x"}, schema)
    assert schema_module._compiled(schema) == (compiled, quick)
    assert schema_module._compiled(dict(schema))[0] is not compiled  # another object: its own validator


def test_check_stays_cheap() -> None:
    schema = {
        "type": "object",
        "properties": {"account_id": {"type": "string"}, "amount": {"type": "number"}, "memo": {"type": "string"}},
        "required": ["account_id", "amount"],
    }
    arguments = {"account_id": "ACC-1001", "amount": 5.0}
    check_arguments(arguments, schema)
    n = 2000
    start = time.perf_counter()
    for _ in range(n):
        check_arguments(arguments, schema)
    per_call = (time.perf_counter() - start) / n
    assert per_call < 500e-6, f"{per_call * 1e6:.0f} us per check"  # a step costs ~1 ms; this is ~20 us


def test_openai_tools_strip_titles() -> None:
    tool = Tool(name="order", description="Place an order.", input_schema=ORDER)
    [spec] = openai_tools([tool])
    assert spec["type"] == "function"
    assert spec["function"]["name"] == "order"
    assert "title" not in spec["function"]["parameters"]
    assert "title" not in spec["function"]["parameters"]["$defs"]["Line"]


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-20, 20)
    | st.floats(-20, 20)
    | st.sampled_from([1.0, 0.0, 5.0, 0.005, 10000.5])
    | st.text(max_size=8)
    | st.sampled_from(["ACC-1001", "deposit", "USD", "ab", "x" * 6]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@functools.cache
def all_schemas() -> list[dict[str, Any]]:
    """Every bundled server's tool schemas (as a real MCP client lists them), and the ones above."""
    from gym_mcp.servers import BUNDLED

    async def listed(name: str) -> list[dict[str, Any]]:
        live = await BundledSource(name).launch(call_timeout=30)
        try:
            return [dict(t.input_schema) for t in live.tools]
        finally:
            await live.close()

    out = [DEPOSIT, ORDER]
    for name in BUNDLED:
        out += asyncio.run(listed(name))
    return out


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_quick_check_never_lets_through_what_the_full_check_refuses(data: st.DataObject) -> None:
    schema = data.draw(st.sampled_from(all_schemas()))
    names = list((schema.get("properties") or {}).keys())
    keys = st.sampled_from(names) | st.text(max_size=3) if names else st.text(max_size=3)
    arguments = data.draw(st.dictionaries(keys, _JSON, max_size=len(names) + 1))
    compiled, quick = schema_module._compiled(schema)
    assert quick is not None
    if schema_module._quickly_valid(quick, arguments):
        assert next(compiled.iter_errors(arguments), None) is None, arguments
    assert (check_arguments(arguments, schema) is None) == (next(compiled.iter_errors(arguments), None) is None)
