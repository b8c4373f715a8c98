"""What synthesis knows about a server: its tools, its entities, and how tools connect.

Derived without an LLM, from the live server:

- `ToolSpec`: a tool's parameters, READ/WRITE kind, intent template and sample values (served
  by kit-built servers in tool metadata).
- `EntityPools`: values a parameter can take, drawn from the server's state (SQLite columns whose
  name matches the parameter, ``from_account_id`` -> ``account_id`` -> ``accounts.id``),
  weighted by how much data refers to each value.
- `ToolGraph`: explicit edges A -> B where a value tool A returns is accepted by a parameter of
  B (learned by calling tools and matching values to parameters by their shape, ``EVT-1042``
  looks like ``EVT-9999``), and implicit edges A -> B where A writes a table whose values B
  returns (learned from state diffs). Cached on disk by a hash of the tool schemas.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.types import Tool

__all__ = [
    "EntityPools",
    "ToolGraph",
    "ToolSpec",
    "kit_tools",
    "shape",
    "tool_specs",
]


def shape(value: Any) -> str | None:
    """The shape of an id-like string (``ACC-1001`` -> ``ACC-9999``); None for other values."""
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z]+[-_]?\d+", value):
        return None
    return re.sub(r"\d", "9", value)


@dataclass(frozen=True)
class ToolSpec:
    """A tool as synthesis sees it.

    Attributes:
        name: Tool name.
        properties: JSON schema of each parameter.
        required: Required parameter names.
        write: True for a tool that may change state.
        intent: The server's request template (None: the tool is never used in a task).
        samples: Literal values per parameter.
        confirm: When a call needs the user's yes first (``"always"``, ``"amount >= 100"``), or None.
        pools: The entity pool of a parameter whose values do not come from its own name
            (``{"path": "text_file"}``); see `pool_of`.
        part: In a composed environment, the part the tool belongs to (its name's prefix,
            ``"bank"`` for ``bank.transfer_funds``); its parameters draw from that part's entities.
        lists: Parameters that take a list of scalars: a value drawn for one is passed as a
            one-item list (inferred tools; see `gym_mcp.synth.infer`).
        inferred: True when the spec was inferred (or hinted by a spec file), not served by
            the tool's own ``gym_mcp/*`` metadata.
    """

    name: str
    properties: Mapping[str, Any]
    required: tuple[str, ...]
    write: bool
    intent: str | None
    samples: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    confirm: str | None = None
    pools: Mapping[str, str] = field(default_factory=dict)
    part: str = ""
    lists: tuple[str, ...] = ()
    inferred: bool = False

    def pool_of(self, param: str) -> str:
        """The entity pool a parameter draws from: the tool's declared pool, else its own name.

        In a composed environment the pool is the part's (``bank.account_id``).
        """
        pool = self.pools.get(param, param)
        return f"{self.part}.{pool}" if self.part else pool

    def param_type(self, param: str) -> set[str]:
        """JSON types a parameter accepts."""
        schema = self.properties.get(param, {})
        if param in self.lists and isinstance(schema.get("items"), Mapping):
            schema = schema["items"]  # a list of scalars: one item's type
        types: set[str] = set()
        for option in [schema, *schema.get("anyOf", [])]:
            t = option.get("type")
            if isinstance(t, str):
                types.add(t)
            elif isinstance(t, list):
                types.update(t)
        return types or {"string"}


def tool_specs(tools: Sequence[Tool], parts: Iterable[str] = ()) -> list[ToolSpec]:
    """Read tool specs from a live server's tool list.

    Args:
        tools: The tools as listed.
        parts: In a composed environment, its parts' names (tools are named ``part.tool``).
    """
    names = set(parts)
    specs = []
    for tool in tools:
        prefix = tool.name.split(".", 1)[0] if "." in tool.name else ""
        meta = tool.meta or {}
        schema = tool.input_schema or {}
        kind = meta.get("gym_mcp/kind")
        if kind is None:
            annotations = tool.annotations
            kind = "read" if annotations is not None and annotations.read_only_hint else "write"
        samples = meta.get("gym_mcp/samples") or {}
        specs.append(
            ToolSpec(
                name=tool.name,
                properties=dict(schema.get("properties") or {}),
                required=tuple(schema.get("required") or ()),
                write=kind == "write",
                intent=meta.get("gym_mcp/intent"),
                samples={k: tuple(v) for k, v in samples.items()},
                confirm=meta.get("gym_mcp/confirm"),
                pools=dict(meta.get("gym_mcp/pools") or {}),
                part=prefix if prefix in names else "",
            )
        )
    return specs


def _singular(table: str) -> str:
    if table.endswith("ies"):
        return table[:-3] + "y"
    if table == "people":
        return "person"
    if table.endswith("ses"):
        return table[:-2]
    return table[:-1] if table.endswith("s") else table


class EntityPools:
    """Entity values by column, weighted by how much data refers to each.

    Args:
        tables: Rows per table, each row ``{column: value}``; a column's values are the pool of
            the parameters named after it (see `column_for`). `from_sqlite` reads a database.
    """

    def __init__(self, tables: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> None:
        self.columns: dict[str, Counter[Any]] = defaultdict(Counter)
        self.tables: dict[str, set[Any]] = defaultdict(set)
        self.rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.value_tables: dict[Any, set[str]] = defaultdict(set)
        refs: Counter[Any] = Counter()
        for table in sorted(tables or {}):
            for row in (tables or {})[table]:
                if len(self.rows[table]) < 5000:
                    self.rows[table].append(dict(row))
                for key, value in row.items():
                    if value is None or isinstance(value, bytes):
                        continue
                    self.columns[key][value] += 0
                    self.tables[table].add(value)
                    self.value_tables[value].add(table)
                    if shape(value):
                        refs[value] += 1
        for counter in self.columns.values():
            for value in counter:
                counter[value] = refs.get(value, 0) + 1

    @classmethod
    def of_parts(cls, parts: Mapping[str, EntityPools]) -> EntityPools:
        """One composed environment's pools: each part's tables and columns under ``part.``."""
        tables: dict[str, list[dict[str, Any]]] = {}
        for name, pools in parts.items():
            for table, rows in pools.rows.items():
                tables[f"{name}.{table}"] = [{f"{name}.{k}": v for k, v in row.items()} for row in rows]
        return cls(tables)

    @classmethod
    def from_sqlite(cls, database: bytes | None) -> EntityPools:
        """Pools from an SQLite snapshot's tables (``id`` columns read as ``<table>_id``).

        Args:
            database: The state's database bytes, or None for no pools.
        """
        if not database:
            return cls()
        conn = sqlite3.connect(":memory:")
        try:
            conn.deserialize(database)
            names = [
                r[0]
                for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")
            ]
            tables: dict[str, list[dict[str, Any]]] = {}
            for table in sorted(names):
                cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
                keys = [f"{_singular(table)}_id" if col == "id" else col for col in cols]
                tables[table] = [dict(zip(keys, row, strict=True)) for row in conn.execute(f'SELECT * FROM "{table}"')]
            return cls(tables)
        finally:
            conn.close()

    @property
    def empty(self) -> bool:
        """True when the state holds no entities at all."""
        return not any(self.columns.values())

    def column_for(self, param: str) -> str | None:
        """The column key a parameter draws from: its own name, or its name minus prefixes.

        A part's name before a dot stays (``bank.from_account_id`` -> ``bank.account_id``).
        """
        part, dot, base = param.rpartition(".")
        words = base.split("_")
        for i in range(len(words)):
            key = part + dot + "_".join(words[i:])
            if key in self.columns and (i == 0 or "_" in key[len(part + dot) :] or key.endswith("id")):
                return key
        return None

    def candidates(self, param: str) -> Counter[Any]:
        """Values for a parameter (see `column_for`), weighted by how much data refers to each."""
        key = self.column_for(param)
        return self.columns[key] if key is not None else Counter()

    def joint_columns(
        self, keys: Mapping[str, str], rng: Any, fixed: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Values for parameters drawn from one row: ``keys`` maps each parameter to its column.

        For inferred tools, whose parameters are named by their pools rather than the kit's
        ``<entity>_id`` columns: a row of a table that holds two or more of the columns, one that
        agrees with the ``fixed`` values (taken from earlier outputs) where its table holds them,
        so a task's ``taskId`` is one of the request's own tasks. Returns the free parameters it
        could fill (empty when no table holds two of the columns).
        """
        fixed = fixed or {}
        best: list[tuple[str, list[str]]] = []
        for table, rows in sorted(self.rows.items()):
            covered = [p for p, k in keys.items() if any(k in row for row in rows[:50])]
            if len(covered) >= 2:
                best.append((table, covered))
        if not best:
            return {}
        most = max(len(c) for _, c in best)
        table, covered = rng.choice([b for b in best if len(b[1]) == most])
        rows = [
            row
            for row in self.rows[table]
            if all(row.get(keys[p]) == v for p, v in fixed.items() if p in covered)
            and all(row.get(keys[p]) is not None for p in covered)
        ]
        if not rows:
            return {}
        row = rng.choice(rows)
        return {p: row[keys[p]] for p in covered if p not in fixed}

    def joint_row(self, params: list[str], rng: Any) -> dict[str, Any]:
        """Values for several id parameters that belong together.

        First choice: one row of a table that holds two or more of the parameters' columns, so
        ``respond_to_invitation(invitation_id, person_id)`` gets an invitation and its own
        invitee. Otherwise the parameters' own entity rows are linked through a shared foreign
        key: ``transfer_funds(from_account_id, to_account_id)`` gets two different accounts of
        one customer, ``pay_payee(payee_id, from_account_id)`` a payee and an account of the
        same customer. Returns the parameters it could fill.
        """
        keys = {p: k for p in params if (k := self.column_for(p)) is not None}
        distinct = {k: p for p, k in reversed(list(keys.items()))}  # one parameter per column
        best: list[tuple[str, list[str]]] = []
        for table, rows in sorted(self.rows.items()):
            if rows:
                covered = [p for k, p in distinct.items() if k in rows[0]]
                if len(covered) >= 2:
                    best.append((table, covered))
        if best:
            most = max(len(c) for _, c in best)
            table, covered = rng.choice([b for b in best if len(b[1]) == most])
            row = rng.choice(self.rows[table])
            return {p: row[keys[p]] for p in covered if row[keys[p]] is not None}
        entity = {p: t for p, k in keys.items() for t in self.rows if f"{_singular(t)}_id" == k and self.rows[t]}
        order = [p for p in params if p in entity]
        if len(order) < 2:
            return {}
        first = rng.choice(self.rows[entity[order[0]]])
        out = {order[0]: first[keys[order[0]]]}
        links = {k: v for k, v in first.items() if k.endswith("_id") and k != keys[order[0]] and v is not None}
        for param in order[1:]:
            linked = [
                r
                for r in self.rows[entity[param]]
                if r is not first
                and r[keys[param]] not in out.values()
                and any(r.get(k) == v for k, v in links.items())
            ]
            if linked:
                out[param] = rng.choice(linked)[keys[param]]
        return out


@dataclass
class ToolGraph:
    """Edges between tools, learned from live calls.

    Attributes:
        explicit: ``{(a, b): [params of b that a's output can fill]}``.
        implicit: ``{(a, b): [tables a writes whose values b returns]}``.
        reads_tables: Tables whose values each tool's output contained.
        writes_tables: Tables each write tool changed.
    """

    explicit: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    implicit: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    reads_tables: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    writes_tables: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def successors(self, tool: str) -> set[str]:
        """Tools with an edge from ``tool``."""
        return {b for (a, b) in [*self.explicit, *self.implicit] if a == tool}

    def observe(
        self, tool: str, output: Any, specs: Sequence[ToolSpec], pools: EntityPools, changed: Iterable[str] = ()
    ) -> None:
        """Learn from one successful call: its output's values and the tables it changed."""
        values = [v for v in _leaves(output)]
        for value in values:
            self.reads_tables[tool].update(pools.value_tables.get(value, ()))
        self.writes_tables[tool].update(changed)
        shapes = {shape(v) for v in values} - {None}
        for spec in specs:
            for param in spec.properties:
                pool = pools.candidates(spec.pool_of(param))
                pool_shapes = {shape(v) for v in list(pool)[:50]} - {None}
                if pool_shapes & shapes:
                    params = self.explicit.setdefault((tool, spec.name), [])
                    if param not in params:
                        params.append(param)

    def finish(self) -> None:
        """Derive implicit edges from what writes changed and what reads return."""
        for writer, tables in self.writes_tables.items():
            for reader, read in self.reads_tables.items():
                common = sorted(tables & read)
                if common and writer != reader:
                    self.implicit[(writer, reader)] = common

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form (for the cache and reports)."""
        return {
            "explicit": [[a, b, p] for (a, b), p in sorted(self.explicit.items())],
            "implicit": [[a, b, t] for (a, b), t in sorted(self.implicit.items())],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ToolGraph:
        """Read the cached form."""
        graph = cls()
        graph.explicit = {(a, b): list(p) for a, b, p in data.get("explicit", [])}
        graph.implicit = {(a, b): list(t) for a, b, t in data.get("implicit", [])}
        return graph


def _leaves(obj: Any) -> Iterable[Any]:
    if isinstance(obj, Mapping):
        for v in obj.values():
            yield from _leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _leaves(v)
    elif obj is not None:
        yield obj


def schema_hash(specs: Sequence[ToolSpec]) -> str:
    """Hash of the tool schemas (the graph cache key)."""
    data = [
        # an inferred or hinted tool's template decides whether it is probed: part of the key
        [s.name, s.properties, list(s.required), s.write, *([s.intent] if s.inferred else [])]
        for s in sorted(specs, key=lambda s: s.name)
    ]
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def cache_dir() -> Path:
    """Where graphs are cached: ``$GYM_MCP_HOME/cache`` (default ``~/.cache/gym-mcp``)."""
    home = os.environ.get("GYM_MCP_HOME")
    base = Path(home) / "cache" if home else Path(os.path.expanduser("~/.cache/gym-mcp"))
    return base / "graphs"


def kit_tools(kit: Any) -> list[Any]:
    """A bundled kit's tools as MCP `Tool` objects (schemas only; no database or folder is read)."""
    import asyncio
    import tempfile

    from gym_mcp.servers import DirectoryKit

    cached = _KIT_TOOLS.get(kit.name)
    if cached is None:
        if isinstance(kit, DirectoryKit):
            server = kit.create_server(Path(tempfile.gettempdir()))  # listing tools touches no file
        else:
            server = kit.create_server(sqlite3.connect(":memory:", check_same_thread=False))

        async def go() -> list[Any]:
            return list(await server.list_tools())

        from gym_mcp.transport.runner import run_sync

        try:
            cached = run_sync(go())
        except RuntimeError:
            cached = asyncio.run(go())
        _KIT_TOOLS[kit.name] = cached
    return cached


_KIT_TOOLS: dict[str, list[Any]] = {}
