"""Tool calls handed straight to an in-process server's own ``tools/call`` handler.

An in-process `mcp.Client` already skips JSON-RPC framing (mcp 2.3 pairs the two sides with a
`DirectDispatcher`), yet one ``tools/call`` still costs ~0.3-0.5 ms on these machines: the
request model built and dumped, the 2026 envelope stamped and re-validated, a per-request
`Connection` and `ServerRunner`, an OpenTelemetry span, three cancel scopes and the result
serialized, sieved and parsed back. Against a BFCL backend method (~0.03 ms) that is ten
times the work itself.

`DirectCalls` runs what the server runs for a ``tools/call`` and nothing around it: the
request's params go through the same JSON-mode dump the client makes and the same params
model the runner validates them with, then the handler the server registered for
``tools/call`` runs with a real request context. For an `MCPServer` that handler is the
server's own tool layer: tool lookup, argument validation, the call (a sync tool in its
worker thread), result conversion, and a failing tool's exception turned into an ``isError``
result. Exceptions leave it as they leave the SDK's in-process dispatcher: `MCPError` as it
is, invalid params as ``INVALID_PARAMS``, anything else as ``INTERNAL_ERROR`` ("Internal server
error").

Only servers for which nothing between the client and that handler can change a result are
called this way (`DirectCalls.lowlevel`): the SDK's default lifespan, and no middleware but
the SDK's own (its OpenTelemetry span, which records and changes nothing, and MCPServer's
request-state boundary, which acts only on ``requestState``, which these calls never carry).
Other servers keep the protocol. What the direct path does not do: emit the server's
OpenTelemetry span, or deliver notifications a tool sends during a call (log messages and
progress go to a client that has no callback for them either way). A tool that asks the
client for input (an ``InputRequiredResult``) is answered as the protocol would answer it:
the caller sends that call again over the protocol (`None` here), the first round of that
flow having no effect by the protocol's design.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio
from mcp.client.session import DEFAULT_CLIENT_INFO
from mcp.server import Server
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import lifespan as default_lifespan
from mcp.server.mcpserver import RequestStateBoundary
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp.shared.transport_context import TransportContext
from mcp.types import CallToolRequestParams, CallToolResult, ClientCapabilities, ErrorData, InputRequiredResult
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import ValidationError

from gym_mcp.transport import sdk

__all__ = ["DirectCalls"]

logger = logging.getLogger(__name__)

_SDK_MIDDLEWARE: frozenset[type] = frozenset({*(type(m) for m in Server("probe").middleware), RequestStateBoundary})
"""The middleware the SDK installs itself (a bare `Server`'s list, plus MCPServer's boundary)."""

_TRANSPORT = TransportContext(kind="direct", can_send_request=False)
_CLIENT_INFO = DEFAULT_CLIENT_INFO.model_dump(by_alias=True, mode="json", exclude_none=True)
_CLIENT_CAPABILITIES = ClientCapabilities().model_dump(by_alias=True, mode="json", exclude_none=True)
"""What our `mcp.Client` (no sampling, elicitation or roots callbacks) declares about itself."""


class _NoBackChannel:
    """The request channel of a direct call: notifications go nowhere, requests are refused.

    A 2026-07-28 connection forbids server-initiated requests on every transport, so refusing
    them is what the protocol path does too.
    """

    transport = _TRANSPORT
    message_metadata = None
    can_send_request = False

    def __init__(self, request_id: int) -> None:
        self.request_id = request_id
        self.cancel_requested = anyio.Event()

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        """Drop a notification (our client has no callback for any)."""

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> dict[str, Any]:
        """Refuse a server-initiated request."""
        raise NoBackChannelError(method)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Drop a progress report."""


class DirectCalls:
    """Calls the ``tools/call`` handler of one in-process server directly.

    Args:
        server: The low-level server (see `lowlevel`).
        lifespan_state: What the server's lifespan yielded.
        protocol_version: The version the client negotiated with this server.
    """

    def __init__(self, server: Server[Any], lifespan_state: Any, protocol_version: str) -> None:
        entry = server.get_request_handler("tools/call")
        if entry is None:
            raise ValueError(f"{server.name}: no tools/call handler")
        self._params_type = entry.params_type
        self._handler = entry.handler
        self._lifespan_state = lifespan_state
        self._version = protocol_version
        self._connection = Connection.from_envelope(protocol_version, _CLIENT_INFO, _CLIENT_CAPABILITIES)
        self._next_id = 0

    @staticmethod
    def lowlevel(target: Any) -> Server[Any] | None:
        """The low-level server behind ``target`` if a direct call gives what the protocol gives.

        Returns:
            The `Server` (an `MCPServer`'s own, which the SDK's client reaches the same way),
            or None: not a server (or an SDK that keeps it elsewhere: `gym_mcp.transport.sdk`), no
            ``tools/call`` handler, a lifespan of its own (its state belongs to the client's
            session), or middleware other than the SDK's.
        """
        server = sdk.lowlevel_server(target)
        if server is None or server.get_request_handler("tools/call") is None:
            return None
        if server.lifespan is not default_lifespan:
            return None
        if any(type(m) not in _SDK_MIDDLEWARE for m in server.middleware):
            return None
        return server

    async def call(self, name: str, arguments: Mapping[str, Any]) -> CallToolResult | None:
        """Run one ``tools/call`` through the server's handler.

        Returns:
            The handler's result, or None when the tool asked for input (send the call over
            the protocol, whose client answers such requests).

        Raises:
            MCPError: What the protocol would answer with an error instead of a result.
        """
        wire = CallToolRequestParams(name=name, arguments=dict(arguments)).model_dump(
            by_alias=True, mode="json", exclude_none=True
        )
        self._next_id += 1
        ctx: ServerRequestContext[Any, Any] = ServerRequestContext(
            session=ServerSession(_NoBackChannel(self._next_id), self._connection),
            lifespan_context=self._lifespan_state,
            protocol_version=self._version,
            method="tools/call",
            params=wire,
            request_id=self._next_id,
        )
        try:
            params = self._params_type.model_validate(wire, by_name=False)
            result = await self._handler(ctx, params)
        except MCPError:
            raise
        except ValidationError as exc:
            raise MCPError(code=INVALID_PARAMS, message="Invalid request parameters", data="") from exc
        except Exception:
            logger.exception("request handler raised")
            raise MCPError(code=INTERNAL_ERROR, message="Internal server error") from None
        if isinstance(result, CallToolResult):
            return result
        if isinstance(result, InputRequiredResult):
            return None
        if isinstance(result, ErrorData):
            raise MCPError.from_error_data(result)
        try:
            return CallToolResult.model_validate(result if isinstance(result, dict) else {}, by_name=False)
        except ValidationError:
            logger.error("handler for 'tools/call' returned an invalid result")
            raise MCPError(code=INTERNAL_ERROR, message="Handler returned an invalid result") from None
