"""BFCL's backend classes served as a live MCP server, with exact snapshots of their state.

A `BFCLWorld` holds the backend objects of one entry (``GorillaFileSystem``, ``TwitterAPI``,
...) and the function docs the agent can see now. `serve` wraps a world in a low-level MCP
server: ``tools/list`` returns the visible docs (converted as BFCL converts them, marked
immediately stale so clients re-list), and ``tools/call`` executes exactly as BFCL's
``execute_multi_turn_func_call`` does: the call is rendered to BFCL's call string by its own
decoder, method names are bound to the instances by its own ``_process_method_calls``, and
the string is evaluated; the result becomes a string the same way. Arguments reach the
methods untouched: no schema validation, no coercion.

`BFCLState` snapshots the world from outside the server (pickled objects plus the visible
docs), so episodes start from an exact state and can be forked mid-way.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import logging
import pickle
import threading
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import mcp.types as types
from mcp.server.lowlevel import Server

from gym_mcp.bfcl.data import backend_class, is_long_context, openai_tools, require_bfcl, shared_entry
from gym_mcp.errors import StateError
from gym_mcp.live import LiveServer, ServerSource
from gym_mcp.state import GroupDiff, Snapshot, StateBackend, StateDiff
from gym_mcp.transport import Launch, LiveConnection

__all__ = ["BFCLSource", "BFCLState", "BFCLWorld", "run_entry_server", "serve"]


class _QuietUnlisted(logging.Filter):
    """Drops the MCP client's warning about calls to tools the server does not list.

    BFCL agents call held-out and made-up functions routinely; the environment reports those
    calls to the agent and counts them, so the client's warning on every one is noise.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return "not listed by server" not in record.getMessage()


logging.getLogger("client").addFilter(_QuietUnlisted())

_FORBIDDEN = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
"""Function names BFCL's executor refuses to evaluate."""


def _as_text(result: Any) -> str:
    """A call's result as BFCL's executor turns it into a string."""
    if type(result) is str:
        return result
    if type(result) is dict:
        try:
            return json.dumps(result)
        except Exception:
            return str(result)
    return str(result)


class BFCLWorld:
    """The backend objects of one BFCL entry and the function docs visible to the agent.

    Args:
        classes: The entry's involved classes, e.g. ``("TwitterAPI", "GorillaFileSystem")``.
    """

    def __init__(self, classes: Sequence[str]) -> None:
        require_bfcl()
        self.classes = tuple(classes)
        self.lock = threading.Lock()
        self.instances: dict[str, Any] = {}
        self.functions: list[dict[str, Any]] = []
        self._packed: tuple[list[dict[str, Any]], dict[str, Any]] | None = None  # (functions, their packed form)
        self._tools: list[types.Tool] = []
        self._methods: dict[str, str] = {}
        self.load({}, [], long_context=False)

    # -- state -------------------------------------------------------------------------------

    def load(
        self, initial_config: Mapping[str, Any], functions: Sequence[Mapping[str, Any]], *, long_context: bool
    ) -> None:
        """Fresh instances from an entry's ``initial_config``, as BFCL builds them."""
        from bfcl_eval.constants.executable_backend_config import STATELESS_CLASSES

        instances = {}
        for name in self.classes:
            instance = backend_class(name)()
            if name not in STATELESS_CLASSES:
                instance._load_scenario(copy.deepcopy(dict(initial_config).get(name, {})), long_context=long_context)
            instances[name] = instance
        self._set(instances, [dict(f) for f in functions])

    def reveal(self, functions: Sequence[Mapping[str, Any]]) -> None:
        """Show more function docs (BFCL's held-out functions at the turn it adds them)."""
        self._set(self.instances, [*self.functions, *(dict(f) for f in functions)])

    def _set(self, instances: dict[str, Any], functions: list[dict[str, Any]]) -> None:
        self.instances = instances
        self.functions = functions
        self._tools = _mcp_tools(functions)
        self._methods = _method_map(instances)

    @property
    def listing(self) -> tuple[tuple[str, str], ...]:
        """What ``tools/list`` returns, as a key: equal keys list the same tools.

        The visible docs' names and descriptions (a doc is fixed by them, as `_mcp_tools`
        assumes too); it changes only at `load`, `reveal` and `undump`.
        """
        return _listing_key(self.functions)

    def dump(self) -> bytes:
        """The whole world as bytes (instances with their private state, visible docs).

        The docs go in pickled apart under their digest (`_pack_functions`): they are most of
        the bytes, the same in every snapshot of an entry, and `undump` reuses the docs it
        already read for a digest instead of reading them again at each reset.
        """
        if self._packed is None or self._packed[0] is not self.functions:
            self._packed = (self.functions, _pack_functions(self.functions))
        return pickle.dumps({"classes": self.classes, "instances": self.instances, "functions": self._packed[1]})

    def undump(self, data: bytes) -> None:
        """Make the world exactly the one `dump` saved."""
        saved = pickle.loads(data)
        if tuple(saved["classes"]) != self.classes:
            raise StateError(f"a snapshot of {saved['classes']} cannot be restored into a world of {self.classes}")
        functions = _unpack_functions(saved["functions"])
        self._set(saved["instances"], functions)
        self._packed = (self.functions, saved["functions"]) if isinstance(saved["functions"], dict) else None

    # -- what the server does -----------------------------------------------------------------

    @property
    def tools(self) -> list[types.Tool]:
        """The visible tools, with BFCL's converted schemas."""
        return list(self._tools)

    def execute(self, name: str, arguments: Any) -> tuple[str, bool]:
        """Run one call as BFCL's executor would; returns ``(result text, is_error)``.

        As in BFCL, every public method of the involved classes can be called, listed or not
        (a ``miss_func`` call to a held-out function runs, as it does in BFCL's inference and
        checker); the tool list only decides what the agent is shown.
        """
        from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import _process_method_calls
        from bfcl_eval.model_handler.utils import convert_to_function_call

        if not name.isidentifier():
            return f"Error during execution: {name!r} is not a function name", True
        if name not in self._methods:  # what evaluating the call string would say
            return f"Error during execution: name '{name}' is not defined", True
        if not isinstance(arguments, dict):
            return f"Error during execution: the arguments must be a JSON object, got {type(arguments).__name__}", True
        bad = [k for k in arguments if not (isinstance(k, str) and k.isidentifier())]
        if bad:
            return f"Error during execution: invalid argument name(s) {', '.join(map(repr, bad))}", True
        call = _process_method_calls(convert_to_function_call({name: arguments})[0], self._methods)
        if name in _FORBIDDEN:
            return f"Error during execution: Function call {name} is not allowed.", True
        namespace: dict[str, Any] = {"__builtins__": {}}
        namespace.update({f"{c}_instance": inst for c, inst in self.instances.items()})
        try:
            with self.lock:
                result = eval(call, namespace)  # a method call on literal arguments: names and keys checked above
        except Exception as exc:
            return f"Error during execution: {exc}", True
        return _as_text(result), False


_method_cache: dict[type, tuple[str, ...]] = {}
_method_maps: dict[tuple[tuple[str, type], ...], dict[str, str]] = {}


def _method_map(instances: Mapping[str, Any]) -> dict[str, str]:
    """Every public method of every instance, as BFCL maps them (held-out ones included).

    ``{method: "<Class>_instance"}``, cached per set of classes: it is rebuilt at every reset
    and depends only on the instances' classes (read-only: never changed in place).
    """
    key = tuple((name, type(instance)) for name, instance in instances.items())
    mapping = _method_maps.get(key)
    if mapping is None:
        mapping = _method_maps[key] = {
            method: f"{class_name}_instance"
            for class_name, instance in instances.items()
            for method in _public_methods(instance)
        }
    return mapping


def _public_methods(instance: Any) -> tuple[str, ...]:
    """The public method names of a backend instance (``inspect.getmembers``), cached per class.

    A world is rebuilt at every reset (`BFCLWorld.undump`) and ``getmembers`` walks every
    attribute: it cost more than the rest of a reset. The backends' methods are their
    classes' (no instance adds one), so the names are the same for every instance of a class.
    """
    names = _method_cache.get(type(instance))
    if names is None:
        names = _method_cache[type(instance)] = tuple(
            name for name, _ in inspect.getmembers(instance, predicate=inspect.ismethod) if not name.startswith("_")
        )
    return names


def _listing_key(functions: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, str], ...]:
    return tuple((f["name"], f["description"]) for f in functions)


_tool_cache: dict[tuple[tuple[str, str], ...], list[types.Tool]] = {}


def _mcp_tools(functions: Sequence[Mapping[str, Any]]) -> list[types.Tool]:
    """MCP tools of BFCL docs (schemas converted by BFCL), cached: docs are fixed per name."""
    key = _listing_key(functions)
    tools = _tool_cache.get(key)
    if tools is None:
        tools = _tool_cache[key] = [
            types.Tool(
                name=t["function"]["name"],
                description=t["function"]["description"],
                input_schema=t["function"]["parameters"],
            )
            for t in openai_tools(functions)
        ]
    return list(tools)


def serve(world: BFCLWorld, name: str = "bfcl") -> Server[Any]:
    """A low-level MCP server over ``world`` (tools listed fresh on every request)."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=world.tools, ttl_ms=0)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text, is_error = world.execute(params.name, params.arguments if params.arguments is not None else {})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    return Server(
        name,
        instructions="BFCL multi-turn backends. The tool list changes when new functions are made available.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def run_entry_server(
    entry_id: str, *, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8000, token: str | None = None
) -> int:
    """Serve one entry's backends, at its initial state, to any MCP client until the transport closes.

    The server lists the functions the entry starts with (a ``miss_func`` entry's held-out
    ones are callable, as in BFCL, but not listed) and executes calls as `BFCLWorld.execute`.

    Args:
        entry_id: E.g. ``"multi_turn_base_0"``.
        transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``/mcp``).
        host: Interface to bind for HTTP (loopback unless told otherwise).
        port: Port for HTTP.
        token: HTTP: a bearer token every request must carry (others get 401); None for none.

    Returns:
        The process exit status.
    """
    import anyio
    from mcp.server.stdio import stdio_server

    e = shared_entry(entry_id)
    world = BFCLWorld(e["involved_classes"])
    world.load(e["initial_config"], e["function"], long_context=is_long_context(entry_id))
    server = serve(world, f"bfcl-{entry_id}")
    if transport == "stdio":

        async def run_stdio() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(run_stdio)
        return 0
    import sys

    from gym_mcp.servers.kit import bearer_auth, listen_socket, serve_http

    sock = listen_socket(host, port)  # bound before anything says "serving" (PortUnavailableError if taken)
    with sock:
        required = "bearer token required" if token else "no token"
        print(f"bfcl-{entry_id}: serving MCP at http://{host}:{port}/mcp ({required})", file=sys.stderr, flush=True)
        app = server.streamable_http_app(json_response=True, host=host, **(bearer_auth(token) if token else {}))
        serve_http(app, sock)
    return 0


# ---------------------------------------------------------------------------------------------
# state


def _canonical(value: Any, stack: tuple[int, ...] = ()) -> Any:
    """Public content of a backend value as JSON-ready data (private ``_attrs`` left out)."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if id(value) in stack:
        return {"__ref__": type(value).__name__}
    inner = (*stack, id(value))
    if isinstance(value, Mapping):
        return {"__map__": sorted(([_canonical(k, inner), _canonical(v, inner)] for k, v in value.items()), key=repr)}
    if isinstance(value, list | tuple):
        return [_canonical(v, inner) for v in value]
    if isinstance(value, set | frozenset):
        return {"__set__": sorted((_canonical(v, inner) for v in value), key=repr)}
    if hasattr(value, "__dict__"):
        attrs = {k: _canonical(v, inner) for k, v in vars(value).items() if not k.startswith("_")}
        return {"__class__": type(value).__name__, **attrs}
    return repr(value)


def _public(saved: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "instances": {name: _canonical(inst) for name, inst in saved["instances"].items()},
        "tools": sorted(f["name"] for f in _unpack_functions(saved["functions"])),
    }


_functions_read: dict[str, list[dict[str, Any]]] = {}
"""Docs already read from a snapshot, by digest (BFCL has a few hundred distinct doc sets)."""


def _pack_functions(functions: list[dict[str, Any]]) -> dict[str, Any]:
    """Function docs as a snapshot holds them: pickled, under the digest of those bytes."""
    data = pickle.dumps(functions)
    return {"digest": hashlib.sha256(data).hexdigest(), "data": data}


def _unpack_functions(packed: Any) -> list[dict[str, Any]]:
    """The docs a snapshot holds (a list in snapshots made before they were packed).

    Docs read once are shared by every world restored from the same digest: no one changes
    them in place (`BFCLWorld.reveal` makes a new list).
    """
    if not isinstance(packed, dict):
        return list(packed)
    functions = _functions_read.get(packed["digest"])
    if functions is None:
        functions = _functions_read[packed["digest"]] = pickle.loads(packed["data"])
    return functions


class BFCLState(StateBackend):
    """The state of a `BFCLWorld`: pickled backend objects plus the visible function docs.

    Fingerprints cover what BFCL's state checker compares (public attributes) and the visible
    tools; private attributes such as file modification times are left out.
    """

    kind = "bfcl"

    def __init__(self, world: BFCLWorld) -> None:
        self.world = world

    def snapshot(self) -> Snapshot:
        """Copy the world."""
        with self.world.lock:
            return Snapshot.of(self.kind, self.world.dump())

    def restore(self, snapshot: Snapshot) -> None:
        """Make the world exactly the snapshot's."""
        self._check_kind(snapshot)
        with self.world.lock:
            self.world.undump(snapshot.data)

    def fingerprint(self) -> str:
        """Hash of the public state and the visible tools."""
        return self.fingerprint_of(self.snapshot())

    def fingerprint_of(self, snapshot: Snapshot) -> str:
        """Hash of a snapshot's public state and visible tools."""
        self._check_kind(snapshot)
        data = json.dumps(_public(pickle.loads(snapshot.data)), sort_keys=True, default=repr)
        return hashlib.sha256(data.encode()).hexdigest()

    def diff(self, a: Snapshot, b: Snapshot) -> StateDiff:
        """Changed public attributes per backend class, and tools added or removed."""
        self._check_kind(a)
        self._check_kind(b)
        before, after = _public(pickle.loads(a.data)), _public(pickle.loads(b.data))
        groups: dict[str, GroupDiff] = {}
        for name, old in before["instances"].items():
            new = after["instances"].get(name, {})
            changed = tuple(
                ({"attribute": k, "value": old.get(k)}, {"attribute": k, "value": new.get(k)})
                for k in sorted(set(old) | set(new))
                if old.get(k) != new.get(k)
            )
            if changed:
                groups[name] = GroupDiff(changed=changed)
        added = tuple(sorted(set(after["tools"]) - set(before["tools"])))
        removed = tuple(sorted(set(before["tools"]) - set(after["tools"])))
        if added or removed:
            groups["tools"] = GroupDiff(added=added, removed=removed)
        return StateDiff(groups)


# ---------------------------------------------------------------------------------------------
# source

_entry_snapshots: dict[str, Snapshot] = {}
_entry_lock = threading.Lock()


class BFCLSource(ServerSource):
    """Launches in-process MCP servers over BFCL backends of a set of classes.

    Servers for the same classes are interchangeable: an episode restores its entry's
    snapshot into a warm one.

    Args:
        classes: The involved backend classes.
        protocol: Tool calls over the MCP protocol (the SDK's in-process session) instead of
            straight to the server's ``tools/call`` handler: the same results, ~0.3 ms more a call.
    """

    transport = "inprocess"

    def __init__(self, classes: Sequence[str], *, protocol: bool = False) -> None:
        self.classes = tuple(classes)
        self.name = "bfcl-" + "+".join(self.classes)
        self.protocol = protocol

    @property
    def key(self) -> Hashable:
        """The classes served (and ``protocol`` when set)."""
        return ("bfcl", self.classes, "protocol") if self.protocol else ("bfcl", self.classes)

    def initial_snapshot(self, seed: int) -> Snapshot:
        """The classes' default scenario with no tools visible (entries start from `entry_snapshot`)."""
        return Snapshot.of(BFCLState.kind, BFCLWorld(self.classes).dump())

    def entry_snapshot(self, entry: Mapping[str, Any]) -> Snapshot:
        """The state an entry starts from: its ``initial_config`` and its visible functions."""
        with _entry_lock:
            snap = _entry_snapshots.get(entry["id"])
            if snap is None:
                world = BFCLWorld(entry["involved_classes"])
                world.load(entry["initial_config"], entry["function"], long_context=is_long_context(entry["id"]))
                snap = _entry_snapshots[entry["id"]] = Snapshot.of(BFCLState.kind, world.dump())
            return snap

    async def launch(self, *, call_timeout: float) -> LiveServer:
        """Start a server on a fresh world."""
        world = BFCLWorld(self.classes)
        launch = Launch(self.name, "inprocess", server_factory=lambda: serve(world, self.name), protocol=self.protocol)
        connection = LiveConnection(launch, call_timeout=call_timeout)
        tools = await connection.start_and_list()
        return LiveServer.single(connection, BFCLState(world), tools, self.key, None)
