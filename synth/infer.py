"""What synthesis needs from a tool nobody annotated for it, inferred by rules (no model).

A tool served by gym-mcp's kit carries ``gym_mcp/*`` metadata (kind, intent template, samples,
pools, confirm). A third-party server's tool has only what every MCP server offers: its name,
description, input schema and, sometimes, MCP annotations. From those, and from the entities of
the server's state, `infer_spec` decides:

- **kind**: the annotations first (``readOnlyHint`` true: a read; ``readOnlyHint`` false or
  ``destructiveHint`` true: a write), else the verb the name starts with (``get``, ``list``,
  ``read``, ``search`` ... read; ``create``, ``add``, ``update``, ``delete``, ``move`` ...
  write), else a write (a tool that may change state is the safe guess: synthesis keeps a write
  only when it really changes the state);
- **intent template**: English from the verb, the object noun and the parameters, in the kit's
  grammar: ``add_note(contact_id, text)`` -> ``"Add the note '{text}' to contact {contact_id}"``
  style: ``{param}`` for a value, ``'{param}'`` for free text, ``[...]`` around an optional
  parameter's phrase (kept only when the call passes it);
- **samples**: a parameter's enum values, and stock values for free text (a note's content, a
  new file's name) where no pool holds any;
- **pools**: which entity column of the state a parameter draws from (its own name, its
  snake-case form, its singular, its last word; ``path`` parameters of file and folder tools
  from the files and folders of a directory state);
- **lists**: parameters that take a list of scalars get a list of one drawn value.

A tool is skipped, with the reason kept for the report, when a required parameter is free-form
code or a query language (``sql``, ``code``, ``script``), takes objects, or has no value source.

`state_tables` reads entities from the states synthesis knows besides SQLite: a folder (files
and folders, plus the records of the JSON and JSON-lines files in it) and a JSON file.

This is the rule-based layer. A later ``--llm`` labeller plugs in at `infer_spec`'s output: it
gets the same `Inferred` records and may replace kinds and templates (see issue 35).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.types import Tool

from gym_mcp.synth.graph import EntityPools, ToolSpec

__all__ = ["Inferred", "infer_spec", "infer_specs", "state_tables", "tool_kind", "words"]

# Verbs a tool name starts with, and what they mean for state.
READ_VERBS = frozenset(
    [
        "get",
        "list",
        "read",
        "search",
        "find",
        "describe",
        "show",
        "query",
        "select",
        "fetch",
        "lookup",
        "view",
        "count",
        "check",
        "retrieve",
        "open",
        "inspect",
        "browse",
        "recall",
        "stat",
        "info",
    ]
)
WRITE_VERBS = frozenset(
    [
        "create",
        "add",
        "update",
        "set",
        "delete",
        "remove",
        "write",
        "move",
        "insert",
        "append",
        "edit",
        "rename",
        "put",
        "post",
        "patch",
        "save",
        "store",
        "make",
        "new",
        "mark",
        "assign",
        "close",
        "cancel",
        "archive",
        "upsert",
        "modify",
        "replace",
        "clear",
        "drop",
        "reset",
        "send",
        "commit",
        "checkout",
        "merge",
        "push",
        "pull",
        "freeze",
        "unfreeze",
        "lock",
        "unlock",
        "pay",
        "transfer",
        "deposit",
        "withdraw",
        "reply",
        "forward",
        "book",
        "schedule",
        "invite",
        "approve",
        "reject",
        "submit",
        "publish",
        "enable",
        "disable",
        "start",
        "stop",
        "release",
        "report",
        "apply",
        "refund",
        "redeem",
        "rate",
        "follow",
        "unfollow",
        "like",
        "upload",
        "respond",
        "place",
        "reserve",
        "order",
    ]
)
# How a verb reads at the start of a request.
_SAY = {"get": "Show", "fetch": "Show", "retrieve": "Show", "lookup": "Look up", "stat": "Show", "info": "Show"}
# Parameters whose value is a program or a query language: no rule writes one that means something.
_CODE_PARAMS = frozenset(
    {"sql", "code", "script", "statement", "program", "expression", "command", "cmd", "source_code"}
)
# Free text a user could ask to store, by the parameter's last word.
_TEXT_WORDS = frozenset(
    [
        "content",
        "contents",
        "text",
        "body",
        "note",
        "notes",
        "message",
        "comment",
        "description",
        "observation",
        "observations",
        "memo",
        "summary",
        "reason",
        "details",
    ]
)
_TEXT_SAMPLES = (
    "Meeting moved to Thursday at 10",
    "Call the supplier about the late delivery",
    "Draft the quarterly summary",
    "Buy printer paper",
    "Review the budget before Friday",
)
# Names a user could give to something new (a file, a folder, a record).
_NEW_NAMES = ("archive", "drafts", "reports", "backup", "ideas")
_NEW_TITLES = ("Project Hermes", "Dana Whitfield", "Quarterly review", "Oak Street office", "Blue team")
_NEW_FILES = ("notes.txt", "summary.md", "plan.txt", "ideas.md", "agenda.txt")
# Names that are identifiers (no spaces: a git branch, a tag, a table): slugs.
_NEW_SLUGS = ("feature-hermes", "release-q3", "fix-login", "docs-update", "spike-cache")
_SLUG_NOUNS = frozenset(
    {"branch", "tag", "ref", "key", "slug", "bucket", "table", "schema", "channel", "queue", "namespace", "username"}
)
# Parameters that name where something goes (a move's destination, a rename's new name).
_NEW_PARAMS = frozenset({"destination", "new_name", "new_path", "target_path", "dest", "new_title"})
# Parameters that name the repository or workspace a server over a folder acts in.
_REPO_PARAMS = frozenset({"repo_path", "repository_path", "repo", "repository", "workspace_path", "project_path"})
# Words of a tool name that start a qualifier: "list_directory_with_sizes" -> "... {path} with sizes".
_PREPOSITIONS = frozenset({"with", "by", "for", "from", "in", "of", "on", "to", "into", "as"})
# Words that point at a path parameter's kind of entity.
_FILE_WORDS = frozenset({"file", "files", "document", "documents"})
_DIR_WORDS = frozenset({"directory", "directories", "folder", "folders", "dir"})


@dataclass(frozen=True)
class Inferred:
    """A tool's spec as inferred, and why it is not used when it is not.

    Attributes:
        spec: The tool spec (``intent`` None when skipped).
        reason: Why the tool is skipped (None when it is used).
    """

    spec: ToolSpec
    reason: str | None = None


def words(name: str) -> list[str]:
    """A name's words in lower case: ``read_text_file`` and ``readTextFile`` -> read, text, file."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def _name_words(name: str) -> list[str]:
    """A tool name's words, verb first.

    A namespace before the verb is dropped (``git_create_branch`` -> create, branch); a verb
    last comes first (``memory_bank_write`` -> write, memory, bank).
    """
    parts = words(name)
    verbs = READ_VERBS | WRITE_VERBS
    if len(parts) > 1 and parts[0] not in verbs and parts[1] in verbs:
        return parts[1:]
    if len(parts) > 1 and not verbs & set(parts[:-1]) and parts[-1] in verbs and parts[-2] not in _PREPOSITIONS:
        return [parts[-1], *parts[:-1]]  # the verb last: memory_bank_write -> write, memory, bank
    return parts


def _snake(name: str) -> str:
    return "_".join(words(name))


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tool_kind(tool: Tool) -> tuple[str, str]:
    """``("read" | "write", why)``: the annotations first, then the name's verb.

    Args:
        tool: The tool as listed.
    """
    notes = tool.annotations
    if notes is not None:
        if notes.read_only_hint is True:
            return "read", "readOnlyHint"
        if notes.read_only_hint is False or notes.destructive_hint is True:
            return "write", "annotations"
    verb = (_name_words(tool.name) or [""])[0]
    if verb in READ_VERBS:
        return "read", f"verb {verb!r}"
    if verb in WRITE_VERBS:
        return "write", f"verb {verb!r}"
    return "write", "no annotation or known verb (a write is kept only if it changes the state)"


def _item_types(schema: Mapping[str, Any]) -> set[str]:
    items = schema.get("items")
    if not isinstance(items, Mapping):
        return set()
    t = items.get("type")
    return {t} if isinstance(t, str) else set(t) if isinstance(t, list) else set()


def _types(schema: Mapping[str, Any]) -> set[str]:
    types: set[str] = set()
    for option in [schema, *schema.get("anyOf", [])]:
        t = option.get("type")
        if isinstance(t, str):
            types.add(t)
        elif isinstance(t, list):
            types.update(t)
    return types or {"string"}


def _is_code(param: str, schema: Mapping[str, Any], tool: Tool) -> bool:
    """Whether a parameter takes a program or a query language (SQL, code, a shell command)."""
    snake = _snake(param)
    if snake in _CODE_PARAMS or snake.endswith(("_sql", "_code", "_script")):
        return True
    described = f"{schema.get('description', '')} {tool.description or ''}".lower()
    return snake in ("query", "q") and bool(re.search(r"\bsql\b|\bselect\b|statement|cypher|graphql", described))


def _pool_for(param: str, tool_words: Sequence[str], types: set[str], pools: EntityPools) -> str | None:
    """The entity column a parameter draws from, or None (see the module docstring)."""
    snake = _snake(param)
    parts = snake.split("_")
    options = [param, snake, _singular(snake), "_".join([*parts[:-1], _singular(parts[-1])])]
    column = pools.column_for(snake)  # the kit's own reading: from_account_id -> account_id
    if column is not None:
        options.insert(2, column)
    if len(parts) > 1:
        options += [_singular(parts[-1]), parts[-1]]
    if snake in ("path", "paths", "source", "destination", "file", "filename", "file_path"):
        if _DIR_WORDS & set(tool_words):
            options.insert(0, "directory")
        elif _FILE_WORDS & set(tool_words) or "file" in snake:
            options.insert(0, "file")
        options.append("path")
    # a column named in another case than the parameter (``deviceSN`` for ``device_sn``)
    by_snake: dict[str, str] = {}
    for column in sorted(pools.columns):
        by_snake.setdefault(_snake(column), column)
    if snake.endswith("_name") and "folder_name" in pools.columns:
        # a folder state: a thing's name is a folder's, a file's where the parameter says file
        options.append("file_name" if _FILE_WORDS & set(parts) else "folder_name")
    for option in options:
        for column in (option, by_snake.get(_snake(option))):
            pool = pools.columns.get(column) if column else None
            if pool and any(_fits(v, types) for v in pool):
                return column
    return None


def _is_id(param: str) -> bool:
    """Whether a parameter names an entity by its id (``contact_id``, ``noteId``)."""
    parts = words(param)
    return len(parts) > 1 and parts[-1] in ("id", "ids")


def _id_noun(param: str) -> list[str]:
    """The entity an id parameter names: ``from_account_id`` -> account."""
    parts = [w for w in words(param)[:-1] if w not in ("from", "to", "source", "target", "parent")]
    return parts or words(param)[:-1]


def _first_new(
    required: Sequence[str],
    description: str = "",
    object_words: Sequence[str] = (),
    has_pool: Callable[[str], bool] = lambda _p: False,
) -> str | None:
    """The required parameter that names what a create tool makes (a repository path is not it).

    Where several could: the one whose noun the description calls new ("Create a new memory bank
    file for a specific project": ``fileName``, not ``projectName``); else a bare ``name`` /
    ``path`` or one named after the tool's object (``branch_name`` of ``create_branch``); else
    the first the state holds no values for; else the first.
    """
    named = [p for p in required if _names_new(p) and _snake(p) not in _REPO_PARAMS]
    text = description.lower()
    nouns = {p: [w for w in words(p) if w not in ("name", "path", "title")] for p in named}
    for param in named:
        noun = nouns[param]
        if noun and re.search(rf"\bnew\b(?:\s+[\w-]+){{0,3}}?\s+{re.escape(noun[-1])}s?\b", text):
            return param
    objects = {_singular(w) for w in object_words}
    for param in named:
        if not nouns[param] or {_singular(w) for w in nouns[param]} <= objects:
            return param
    return next((p for p in named if not has_pool(p)), named[0] if named else None)


def _names_new(param: str) -> bool:
    """Whether a create tool's parameter names the new thing (a path, a name, a title)."""
    snake = _snake(param)
    return snake in ("path", "name", "title", "file", "filename", "directory", "folder", "dir") or snake.endswith(
        ("_name", "_path", "_title")
    )


def _fits(value: Any, types: set[str]) -> bool:
    if isinstance(value, bool):
        return "boolean" in types
    if isinstance(value, int | float):
        return bool(types & {"integer", "number"})
    return isinstance(value, str) and "string" in types


def _phrase(param: str, schema: Mapping[str, Any], text: bool) -> str:
    """How one parameter reads after the object: ``with the content '{content}'``."""
    noun = " ".join(w for w in words(param) if w not in ("id",)) or param
    slot = f"'{{{param}}}'" if text else f"{{{param}}}"
    if _snake(param) in _REPO_PARAMS:
        return f"in the repository at {slot}"
    if _snake(param) in _NEW_PARAMS | {"to", "target"} and not _types(schema) & {"integer", "number"}:
        return f"to {slot}"
    if "enum" in schema or _types(schema) & {"integer", "number", "boolean"}:
        return f"with {noun} {slot}"
    return f"with the {noun} {slot}"


def _intent(
    tool: Tool,
    verb: str,
    write: bool,
    properties: Mapping[str, Any],
    required: Sequence[str],
    texts: set[str],
    usable: set[str],
) -> str:
    """The request template: verb, object, the first required parameter, then the others."""
    name_words = _name_words(tool.name)
    known = verb in READ_VERBS | WRITE_VERBS
    obj_words = name_words[1:] if known else name_words
    # no verb we know: a read shows its object ("directory_tree" -> "Show the directory tree")
    said = (
        _SAY.get(verb, verb.capitalize()) if known else "Show" if verb not in WRITE_VERBS and write is False else "Run"
    )
    cut = next((i for i, w in enumerate(obj_words) if w in _PREPOSITIONS), len(obj_words))
    obj, qualifier = " ".join(obj_words[:cut]), " ".join(obj_words[cut:])
    head = f"{said} the {obj}" if obj else said
    req = [p for p in properties if p in required]
    opt = [p for p in properties if p not in required and p in usable]
    # An id of another entity than the object is where the call acts: "Add the note '{text}'
    # to contact {contact_id}", "List the notes of contact {contact_id}".
    obj_nouns = {_singular(w) for w in obj_words[:cut]}
    owners = [p for p in req if _is_id(p) and not {_singular(w) for w in _id_noun(p)} <= obj_nouns]
    repos = [p for p in req if _snake(p) in _REPO_PARAMS]  # said last: "... in the repository at ."
    own = [p for p in req if p not in owners and p not in repos]
    said_by_owners = {_singular(w) for p in owners for w in _id_noun(p)}
    if obj_words[cut + 1 :] and {_singular(w) for w in obj_words[cut + 1 :]} <= said_by_owners:
        qualifier = ""  # add_tasks_to_request: "... to request {requestId}" says it once
    parts: list[str] = [head]
    if own:
        first = own[0]
        slot = f"'{{{first}}}'" if first in texts else f"{{{first}}}"
        if _is_id(first) and obj:
            # "Freeze account {account_id}", as the kit says it: a reference to an earlier
            # result then reads "Freeze that account", not "the that account"
            parts[0] = f"{said} {obj}"
        parts.append(slot)
    if qualifier:  # after the object's own value: "List the directory docs with sizes"
        parts.append(qualifier)
    for param in own[1:]:
        parts.append(_phrase(param, properties[param], param in texts))
    linker = (
        "to" if verb in ("add", "append", "insert", "attach", "assign", "post", "send") else "for" if write else "of"
    )
    for param in owners:
        parts.append(f"{linker} {' '.join(_id_noun(param))} {{{param}}}")
    for param in repos:
        parts.append(_phrase(param, properties[param], False))
    text = " ".join(parts)
    for param in opt:
        text += f"[ {_phrase(param, properties[param], param in texts)}]"
    return text


def infer_spec(tool: Tool, pools: EntityPools, *, part: str = "", name: str | None = None) -> Inferred:
    """Infer one tool's spec from its name, description, schema, annotations and the state.

    Args:
        tool: The tool as listed (without ``gym_mcp/*`` metadata).
        pools: The entities of the server's seed state.
        part: In a composed environment, the tool's part.
        name: The name the agent sees (default: the tool's own).

    Returns:
        The spec, with the reason when the tool cannot be used in tasks.
    """
    schema = tool.input_schema or {}
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    required = tuple(schema.get("required") or ())
    kind, _why = tool_kind(tool)
    tool_words = _name_words(tool.name)
    verb = tool_words[0] if tool_words else ""
    creates = verb in ("create", "make", "new", "add", "write", "save", "insert", "put", "post", "store")
    samples: dict[str, tuple[Any, ...]] = {}
    pool_of: dict[str, str] = {}
    lists: list[str] = []
    texts: set[str] = set()
    usable: set[str] = set()
    reason: str | None = None
    for param, prop in properties.items():
        prop = prop if isinstance(prop, Mapping) else {}
        needed = param in required
        types = _types(prop)
        if ("array" in types and "object" in _item_types(prop)) or "object" in types:
            # objects (a knowledge graph's entities): whole values built from the state and stock
            # text, a list of one object where a list is taken
            listed = "array" in types
            items = prop.get("items") if listed else prop
            made = _objects(items if isinstance(items, Mapping) else {}, tool_words, creates, pools, tool.name + param)
            if not made:
                if needed:
                    kind_of = "a list of objects" if listed else "an object"
                    reason = reason or f"parameter {param!r} takes {kind_of} whose fields have no values"
                continue
            samples[param] = tuple([m] for m in made) if listed else tuple(made)
            usable.add(param)
            continue
        if "array" in types:
            inner = _item_types(prop)
            if not inner or "array" in inner:
                if needed:
                    reason = reason or f"parameter {param!r} takes a list of lists"
                continue
            lists.append(param)
            types = inner
        if _is_code(param, prop, tool):
            if needed:
                reason = reason or f"parameter {param!r} takes code or a query language"
            continue
        enum = prop.get("enum") or (prop.get("items", {}).get("enum") if param in lists else None)
        last = _snake(param).split("_")[-1]
        if isinstance(enum, list) and enum:
            samples[param] = tuple(enum)
        elif "string" in types and _snake(param) in _REPO_PARAMS:
            # the server's own folder (its working directory is the state); "./", not ".", which
            # a sentence's full stop would swallow
            samples[param] = ("./",)
        elif (
            "string" in types
            and creates
            and needed
            and param
            == _first_new(
                required,
                tool.description or "",
                tool_words[1:],
                lambda p: _pool_for(p, tool_words, _types(properties.get(p) or {}), pools) is not None,
            )
        ):
            # the thing a create/write tool makes: a new name, not an existing one
            is_file = bool(_FILE_WORDS & set(tool_words)) or "file" in _snake(param)
            is_dir = bool(_DIR_WORDS & set(tool_words))
            is_slug = bool(_SLUG_NOUNS & {_singular(w) for w in [*words(param), *tool_words[1:]]})
            samples[param] = _NEW_FILES if is_file else _NEW_NAMES if is_dir else _NEW_SLUGS if is_slug else _NEW_TITLES
        elif "string" in types and _snake(param) in _NEW_PARAMS:
            # where something goes: a new name (an existing one is usually refused)
            samples[param] = _NEW_FILES if _FILE_WORDS & set(tool_words) else _NEW_NAMES
        elif (pool := _pool_for(param, tool_words, types, pools)) is not None:
            if pool != param:
                pool_of[param] = pool
        elif "string" in types and (last in _TEXT_WORDS or _singular(last) in _TEXT_WORDS):
            samples[param] = _TEXT_SAMPLES
            texts.add(param)
        elif "string" in types and kind == "read" and (found := _search_samples(param, pools)):
            samples[param] = found  # a search: words and file patterns the state really holds
            texts.add(param)
        elif types & {"integer", "number", "boolean"}:
            pass  # the filler draws a small number or a yes/no
        else:
            if needed:
                reason = reason or f"required parameter {param!r} has no values (no pool, enum or sample)"
            continue
        usable.add(param)
    intent = None if reason else _intent(tool, verb, kind == "write", properties, required, texts, usable)
    spec = ToolSpec(
        name=name or tool.name,
        properties=properties,
        required=required,
        write=kind == "write",
        intent=intent,
        samples=samples,
        pools=pool_of,
        part=part,
        lists=tuple(lists),
        inferred=True,
    )
    return Inferred(spec, reason)


def _field_values(
    field: str, schema: Mapping[str, Any], types: set[str], tool_words: Sequence[str], creates: bool, pools: EntityPools
) -> list[Any]:
    """Candidate values for one field of an object parameter (empty: none)."""
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return list(enum)
    last = _snake(field).split("_")[-1]
    # a field that names the new thing itself ("name" of an entity to create); "entityName"
    # points at an existing one
    if "string" in types and creates and _snake(field) in ("name", "title", "path", "file", "filename"):
        return list(_NEW_FILES if _FILE_WORDS & set(tool_words) else _NEW_TITLES)
    pool = _pool_for(field, tool_words, types, pools)
    if pool is not None:
        return sorted((v for v in pools.columns[pool] if _fits(v, types)), key=str)[:50]
    if "string" in types and (last in _TEXT_WORDS or _singular(last) in _TEXT_WORDS):
        return list(_TEXT_SAMPLES)
    if types & {"integer", "number"}:
        return [1, 2, 3]
    return []


def _objects(
    schema: Mapping[str, Any], tool_words: Sequence[str], creates: bool, pools: EntityPools, seed: str
) -> list[dict[str, Any]]:
    """A few whole objects for an object parameter: each required field from its own values.

    Drawn once, with a generator seeded by the tool and parameter, so a rerun gives the same.
    """
    props = schema.get("properties") or {}
    required = list(schema.get("required") or props)
    choices: dict[str, tuple[list[Any], bool]] = {}
    for field in required:
        found = props.get(field)
        fs: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        types = _types(fs)
        listed = "array" in types
        if listed:
            types = _item_types(fs)
            items = fs.get("items")
            fs = items if isinstance(items, Mapping) else {}
        if not types or types & {"object", "array"}:
            return []
        values = _field_values(field, fs, types, tool_words, creates, pools)
        if not values:
            return []
        choices[field] = (values, listed)
    if not choices:
        return []
    rng = random.Random(seed)
    made: dict[str, dict[str, Any]] = {}
    for _ in range(64):
        obj = {}
        for field, (values, listed) in choices.items():
            value = rng.choice(values)
            obj[field] = [value] if listed else value
        made.setdefault(json.dumps(obj, sort_keys=True), obj)
    return list(made.values())[:16]


def _search_samples(param: str, pools: EntityPools) -> tuple[str, ...]:
    """Search terms for a read tool's query or pattern: words and file patterns from the state."""
    snake = _snake(param)
    if snake in ("pattern", "glob", "file_pattern"):
        suffixes = sorted({Path(str(v)).suffix for v in pools.columns.get("file", {}) if Path(str(v)).suffix})
        return tuple(f"*{s}" for s in suffixes[:5])
    if snake not in ("query", "q", "search", "keyword", "keywords", "term", "search_term", "text"):
        return ()
    found: set[str] = set()
    for column in ("name", "title", "subject"):
        for value in pools.columns.get(column, {}):
            first = str(value).split()[0] if str(value).split() else ""
            if len(first) >= 3 and first.isalpha():
                found.add(first)
    return tuple(sorted(found)[:8])


def infer_specs(
    tools: Iterable[Tool], specs: Sequence[ToolSpec], pools: EntityPools
) -> tuple[list[ToolSpec], dict[str, str]]:
    """Replace the specs of tools without ``gym_mcp/*`` metadata by inferred ones.

    Args:
        tools: The tools as listed (in the order of ``specs``).
        specs: Their specs as read from metadata (`tool_specs`).
        pools: The entities of the seed state.

    Returns:
        The specs, and ``{tool: why it is skipped}`` for inferred tools no task can use.
    """
    out: list[ToolSpec] = []
    skipped: dict[str, str] = {}
    for tool, spec in zip(tools, specs, strict=True):
        meta = tool.meta or {}
        if any(str(k).startswith("gym_mcp/") for k in meta):
            out.append(spec)
            continue
        inferred = infer_spec(tool, pools, part=spec.part, name=spec.name)
        out.append(inferred.spec)
        if inferred.reason:
            skipped[spec.name] = inferred.reason
    return out, skipped


def _records(
    value: Any, table: str, tables: dict[str, list[dict[str, Any]]], parent: Mapping[str, Any] | None = None
) -> None:
    """The flat records of a JSON value: every list of objects is a table (nested lists too).

    A record's ``id`` is also its ``<table>_id`` (a task's ``id`` is what ``taskId`` names), and
    a nested record carries its parent's ids (a request's task holds the ``requestId``), so the
    parameters of one call can be drawn from one record.
    """
    if isinstance(value, list):
        for item in value:
            if isinstance(item, Mapping):
                kind = item.get("type") if isinstance(item.get("type"), str) else table
                flat = {k: v for k, v in item.items() if isinstance(v, str | int | float) and not isinstance(v, bool)}
                if "id" in flat and not isinstance(item.get("type"), str):
                    flat.setdefault(f"{_singular(_snake(str(kind)))}_id", flat["id"])
                ids = {k: v for k, v in flat.items() if _is_id(k) or k == "id"}
                if flat and parent:
                    flat = {**{k: v for k, v in parent.items() if k != "id"}, **flat}
                if flat:
                    tables.setdefault(str(kind), []).append(flat)
                inherited = {**(parent or {}), **ids}
                for key, sub in item.items():
                    if isinstance(sub, list | Mapping):
                        _records(sub, key, tables, inherited)
    elif isinstance(value, Mapping):
        for key, sub in value.items():
            if isinstance(sub, list | Mapping):
                _records(sub, key, tables, parent)


def _json_tables(text: str, table: str, tables: dict[str, list[dict[str, Any]]]) -> None:
    try:
        _records(json.loads(text), table, tables)
        return
    except ValueError:
        pass
    rows = []
    for line in text.splitlines():  # JSON lines: one record a line
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    _records(rows, table, tables)


def state_tables(kind: str, data: bytes | None = None, root: Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Entity tables of a folder or JSON state (SQLite states: `EntityPools.from_sqlite`).

    A folder gives ``files`` (columns ``path`` and ``file``) and ``folders`` (``path`` and
    ``directory``), paths relative to the root with ``/``; the records of each ``.json`` and
    ``.jsonl`` file in it are read as for a JSON state. A JSON state's lists of objects are
    tables (named by each record's ``type`` when it has one: a knowledge graph's ``entity`` and
    ``relation`` records), their scalar keys the columns.

    Args:
        kind: The snapshot's kind (``"directory"`` or ``"json"``).
        data: A JSON state's bytes.
        root: A folder state's root (restored).
    """
    tables: dict[str, list[dict[str, Any]]] = {}
    if kind == "json" and data:
        _json_tables(data.decode("utf-8", "replace"), "records", tables)
    elif kind == "directory" and root is not None:
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if any(part.startswith(".") for part in path.relative_to(root).parts):
                continue  # hidden files (.git, ...) are the tool's business, not the user's
            # names too (a folder's own, a file's and its folder's): servers that take a
            # project and a file name rather than a path
            if path.is_dir():
                tables.setdefault("folders", []).append({"path": rel, "directory": rel, "folder_name": path.name})
            elif path.is_file():
                row = {"path": rel, "file": rel, "file_name": path.name}
                if path.parent != root:
                    row["folder_name"] = path.parent.name
                tables.setdefault("files", []).append(row)
                if path.suffix in (".json", ".jsonl") and path.stat().st_size < 1_000_000:
                    _json_tables(path.read_text("utf-8", "replace"), path.stem, tables)
    return tables
