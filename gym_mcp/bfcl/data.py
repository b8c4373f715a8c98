"""BFCL's multi-turn data, loaded through `bfcl-eval` itself.

Entries come from BFCL's own loader (`load_dataset_entry`), so each carries the function docs
BFCL would show a model (language hint included, held-out functions of ``miss_func`` moved to
``missed_function``). Tool schemas are converted with BFCL's `convert_to_tool`, as its OpenAI
function-calling handler does. Ground-truth calls (Python call strings such as
``sort('final_report.pdf')``) are turned into ``{"name", "arguments"}`` calls by binding them to
the backend method's signature.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import inspect
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gym_mcp.errors import ConfigError, DependencyMissing

__all__ = [
    "BFCL_VERSION",
    "CATEGORIES",
    "INSTALL_HINT",
    "MAX_STEPS_PER_TURN",
    "category_of",
    "check_entry_id",
    "entries",
    "entry",
    "ground_truth",
    "ground_truth_calls",
    "is_long_context",
    "openai_tools",
    "require_bfcl",
]

BFCL_VERSION = "2026.3.23"
"""The `bfcl-eval` release gym-mcp is tested against."""

CATEGORIES: tuple[str, ...] = ("base", "miss_func", "miss_param", "long_context")
"""BFCL v3 multi-turn categories (200 entries each)."""

MAX_STEPS_PER_TURN = 20
"""BFCL's ``MAXIMUM_STEP_LIMIT``: a turn is force-quit once the agent's call steps exceed it."""

INSTALL_HINT = (
    'the BFCL suite needs the [bfcl] extra: pip install -e ".[bfcl]" && '
    f"pip install --no-deps bfcl-eval=={BFCL_VERSION}"
)


def _default_project_root() -> Path:
    home = os.environ.get("GYM_MCP_HOME")
    base = Path(home) / "cache" if home else Path(os.path.expanduser("~")) / ".cache" / "gym-mcp"
    return base / "bfcl"


@functools.cache
def require_bfcl() -> None:
    """Import `bfcl-eval`, keeping its result folders out of its install directory.

    BFCL creates ``result/``, ``score/`` and lock folders under ``BFCL_PROJECT_ROOT`` when it is
    imported; unless the caller set that variable, it points at ``$GYM_MCP_HOME/cache/bfcl``
    (default ``~/.cache/gym-mcp/bfcl``).

    Raises:
        DependencyMissing: `bfcl-eval` or one of the few packages it needs here is not installed.
    """
    os.environ.setdefault("BFCL_PROJECT_ROOT", str(_default_project_root()))
    try:
        importlib.import_module("bfcl_eval.model_handler.utils")
        importlib.import_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker")
    except ImportError as exc:
        raise DependencyMissing(f"{INSTALL_HINT} ({exc})", extra="bfcl") from None


def _category_name(category: str) -> str:
    short = category.removeprefix("multi_turn_")
    if short not in CATEGORIES:
        raise ConfigError(f"unknown BFCL multi-turn category {category!r}; use one of: {', '.join(CATEGORIES)}")
    return f"multi_turn_{short}"


def category_of(entry_id: str) -> str:
    """The category of an entry id, as BFCL reads it (``multi_turn_base_3`` -> ``multi_turn_base``)."""
    return entry_id.rsplit("_", 1)[0]


def is_long_context(entry_id: str) -> bool:
    """Whether BFCL loads the entry's backends in long-context mode (decided from the id, as BFCL does)."""
    category = category_of(entry_id)
    return "long_context" in category or "composite" in category


@functools.cache
def _entries(category: str) -> tuple[dict[str, Any], ...]:
    require_bfcl()
    from bfcl_eval.utils import load_dataset_entry

    return tuple(load_dataset_entry(category))


@functools.cache
def _ground_truth(category: str) -> dict[str, list[list[str]]]:
    require_bfcl()
    from bfcl_eval.utils import load_ground_truth_entry

    return {g["id"]: g["ground_truth"] for g in load_ground_truth_entry(category)}


def entries(category: str) -> list[dict[str, Any]]:
    """All entries of a category (``"base"`` or ``"multi_turn_base"``), deep copies in BFCL's order.

    Raises:
        ConfigError: An unknown category, or `bfcl-eval` is missing.
    """
    return [copy.deepcopy(e) for e in _entries(_category_name(category))]


@functools.cache
def _index(category: str) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in _entries(category)}


def entry(entry_id: str) -> dict[str, Any]:
    """One entry by id (``"multi_turn_base_0"``), a deep copy.

    Raises:
        ConfigError: No such entry.
    """
    return copy.deepcopy(dict(shared_entry(entry_id)))


def shared_entry(entry_id: str) -> Mapping[str, Any]:
    """One entry by id, the loaded copy itself: read it, never change it.

    Raises:
        ConfigError: No such entry.
    """
    check_entry_id(entry_id)
    return _index(_category_name(category_of(entry_id)))[entry_id]


def check_entry_id(entry_id: str) -> None:
    """Raise `ConfigError` unless ``entry_id`` names a multi-turn entry."""
    category = _category_name(category_of(entry_id))
    index = _index(category)
    if entry_id not in index:
        raise ConfigError(f"no BFCL entry {entry_id!r}; {category} has {category}_0 .. {category}_{len(index) - 1}")


def ground_truth(entry_id: str) -> list[list[str]]:
    """The entry's ground truth: per turn, BFCL's call strings."""
    category = _category_name(category_of(entry_id))
    try:
        return copy.deepcopy(_ground_truth(category)[entry_id])
    except KeyError:
        raise ConfigError(f"no BFCL ground truth for {entry_id!r}") from None


def openai_tools(functions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """BFCL function docs as OpenAI tools, converted by BFCL's own `convert_to_tool`.

    The result is what BFCL's OpenAI function-calling handler sends; the ``response`` field
    (a return-value description that is not part of the OpenAI schema) is kept out. The docs
    are not changed (`convert_to_tool` works on a deep copy).
    """
    require_bfcl()
    from bfcl_eval.constants.enums import ModelStyle
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
    from bfcl_eval.model_handler.utils import convert_to_tool

    tools: list[dict[str, Any]] = convert_to_tool(list(functions), GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS)
    for tool in tools:
        tool["function"].pop("response", None)
    return tools


@functools.cache
def backend_class(class_name: str) -> type:
    """A BFCL backend class by name (``"GorillaFileSystem"``, ``"TwitterAPI"``, ...)."""
    require_bfcl()
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    try:
        module = importlib.import_module(CLASS_FILE_PATH_MAPPING[class_name])
    except KeyError:
        raise ConfigError(f"unknown BFCL backend class {class_name!r}") from None
    cls: type = getattr(module, class_name)
    return cls


def _method_signature(classes: Sequence[str], name: str) -> inspect.Signature:
    for class_name in classes:
        method = getattr(backend_class(class_name), name, None)
        if method is not None and not name.startswith("_"):
            return inspect.signature(method)
    raise ConfigError(f"no backend of {', '.join(classes)} has a method {name!r}")


def ground_truth_calls(call_strings: Sequence[str], classes: Sequence[str]) -> list[dict[str, Any]]:
    """BFCL call strings as tool calls with JSON arguments.

    Positional arguments (``sort('final_report.pdf')``) are bound to parameter names through
    the backend method's signature, so the call an agent would send carries the same values.

    Args:
        call_strings: Calls such as ``"cd(folder='document')"``.
        classes: The entry's involved backend classes.

    Returns:
        ``[{"name": ..., "arguments": {...}}, ...]``.
    """
    calls = []
    for text in call_strings:
        node = ast.parse(text, mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ConfigError(f"not a plain function call: {text!r}")
        name = node.func.id
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None}
        signature = _method_signature(classes, name)
        bound = signature.bind(None, *args, **kwargs)  # None stands for self
        arguments = {k: v for k, v in bound.arguments.items() if k != "self"}
        calls.append({"name": name, "arguments": arguments})
    return calls
