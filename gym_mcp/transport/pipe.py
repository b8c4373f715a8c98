"""Tool calls written straight onto a stdio server's pipe, beside its MCP session.

Over stdio a ``tools/call`` through `mcp.Client` costs ~1 ms of client CPU on these machines,
and the JSON it exchanges (a request line out, a response line back) costs ~0.05 ms to write
and read: the rest is the SDK's machinery around every request (the request model built and
dumped, the 2026 envelope stamped, a dispatcher with its memory streams and tasks, an
OpenTelemetry span, a cancel scope per layer, the response parsed as a union of every message
type and routed back). A raw JSON-RPC exchange over the same pipe takes 0.3 ms of client CPU
and ~30% less wall time per call than the SDK's (`benchmarks/bench_step.py` measures both).

`PipeCalls` sends ``tools/call`` as the session would send it and reads the answer as the
session would read it, without the machinery:

- the request carries what the session stamps on each of its requests (on a 2026-07-28
  connection, the ``_meta`` envelope: protocol version, client info and capabilities), taken
  from the session itself once, after the handshake;
- it goes out through the connection's own transport with an id no session uses
  (`ProcessTransport.request`), so its answer never reaches the session;
- the answer goes through the checks the session applies: an error becomes the same
  `MCPError`, a result is validated against the negotiated version's result schema and as a
  `CallToolResult` (the caller then checks structured content against the tool's output
  schema, as the client does).

The MCP session stays up for everything else: the handshake, ``tools/list``, notifications and
requests from the server. A tool that asks the client for input (an ``InputRequiredResult``)
is answered as over the protocol: the caller sends the call again through the session (`None`
here), the first round of that flow having no effect by the protocol's design. Arguments that
are not plain JSON also go through the session, which serializes (or refuses) them as always.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Mapping
from typing import Any, Protocol

import mcp_types.methods as wire_methods
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ErrorData

from gym_mcp.transport import sdk

__all__ = ["PipeCalls"]

logger = logging.getLogger(__name__)


class _Requester(Protocol):
    async def request(self, method: str, params_json: str) -> dict[str, Any]: ...


class PipeCalls:
    """Sends one server's ``tools/call`` requests itself, as its MCP session would.

    Args:
        transport: Sends a request beside the session and returns the response object.
        protocol_version: The version the session negotiated.
        meta: What the session adds as ``params._meta`` to each request (None: nothing).
        later_fields: Result keys of later protocol revisions, dropped as the session drops them.
    """

    def __init__(
        self,
        transport: _Requester,
        protocol_version: str,
        meta: Mapping[str, Any] | None = None,
        later_fields: frozenset[str] = frozenset(),
    ) -> None:
        self._transport = transport
        self._version = protocol_version
        self._meta_json = _dumps(dict(meta)) if meta else None
        self._later_fields = later_fields

    @classmethod
    def for_session(cls, transport: _Requester, session: Any) -> PipeCalls | None:
        """Calls that match what ``session`` (an SDK `ClientSession`, after its handshake) sends.

        Returns:
            None when the session cannot be matched (an SDK that stamps requests otherwise, or
            lacks a name `gym_mcp.transport.sdk` reads): its calls then keep going through the
            session.
        """
        version = getattr(session, "protocol_version", None)
        stamp = sdk.session_stamp(session)
        if not isinstance(version, str) or stamp is None:
            return None
        try:
            probe: dict[str, Any] = {"method": "tools/call", "params": {"name": "", "arguments": {}}}
            stamp(probe, {})
            extra = set(probe) - {"method", "params"} | set(probe["params"]) - {"name", "arguments", "_meta"}
            if extra:  # the session adds something other than the envelope: keep to the session
                return None
            meta = probe["params"].get("_meta")
            later_fields = sdk.later_revision_fields("tools/call", version)
            if later_fields is None:  # which result keys the session drops is unknown: keep to the session
                return None
            return cls(transport, version, meta, later_fields)
        except Exception:  # pragma: no cover - an SDK that stamps otherwise
            logger.debug("tool calls stay on the MCP session", exc_info=True)
            return None

    async def call(self, name: str, arguments: Mapping[str, Any]) -> CallToolResult | None:
        """Run one ``tools/call``.

        Returns:
            The result; None when the call must go through the session instead (arguments that
            are not plain JSON, or a tool that asked for input).

        Raises:
            MCPError: The server answered with an error.
            ConnectionError: The server's output ended before the answer.
            pydantic.ValidationError: The result does not fit the negotiated version.
        """
        try:
            params = f'{{"name":{_dumps(name)},"arguments":{_dumps(dict(arguments))}'
        except (TypeError, ValueError):
            return None
        if self._meta_json is not None:
            params += f',"_meta":{self._meta_json}'
        answer = await self._transport.request("tools/call", params + "}")
        if "result" not in answer:
            error = answer.get("error")
            raise MCPError.from_error_data(ErrorData.model_validate(error if isinstance(error, dict) else {}))
        raw = answer["result"]
        if not isinstance(raw, dict):  # not a result object: the session refuses it the same way
            return CallToolResult.model_validate(raw, by_name=False)
        ttl = raw.get("ttlMs")
        if isinstance(ttl, int | float) and not isinstance(ttl, bool) and ttl < 0:
            raw["ttlMs"] = 0  # the session floors a negative cache hint the same way
        with contextlib.suppress(KeyError):  # KeyError: no result schema for tools/call in this version
            wire_methods.validate_server_result("tools/call", self._version, raw)
        if self._later_fields and not self._later_fields.isdisjoint(raw):
            raw = {k: v for k, v in raw.items() if k not in self._later_fields}
        if raw.get("resultType", "complete") != "complete":
            return None  # e.g. input_required: the session's client answers such rounds
        return CallToolResult.model_validate(raw, by_name=False)


def _dumps(value: Any) -> str:
    """Compact JSON as the SDK writes it (UTF-8 text, no NaN or infinities)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
