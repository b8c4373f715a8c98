"""A plain `MCPServer` with what the bundled servers lack: structured output, a request
context, a request for input, and JSON-RPC errors. Run it as a stdio server with
``python -m tests.servers.odd``.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel


class Answer(BaseModel):
    value: int


def odd_server() -> MCPServer:
    """A fresh server (see the module docstring)."""
    server = MCPServer("custom")

    @server.tool()
    def typed(x: int) -> Answer:
        """Structured output, checked by the client against the output schema."""
        return Answer(value=x * 2)

    @server.tool()
    def wrong_type(x: int) -> int:
        """Returns what its annotation says it does not."""
        return "not a number"  # type: ignore[return-value]

    @server.tool()
    async def with_context(text: str, ctx: Context) -> str:
        """Reports progress and reads the request's context."""
        await ctx.report_progress(1, 2)
        return f"{text} {ctx.protocol_version} {ctx.client_capabilities}"

    @server.tool()
    async def asks(ctx: Context) -> str:
        """Asks the client for input (which our client cannot give)."""

        class Reply(BaseModel):
            ok: bool

        result = await ctx.elicit("sure?", Reply)
        return str(result.action)

    @server.tool()
    def protocol_error() -> str:
        """Answers with a JSON-RPC error rather than a result."""
        raise MCPError(code=-32001, message="custom failure", data={"why": "test"})

    @server.tool()
    def echo(text: str) -> str:
        """Answers with its argument."""
        return text

    return server


if __name__ == "__main__":
    odd_server().run("stdio")
