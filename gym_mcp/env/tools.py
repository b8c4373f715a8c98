"""Tool views: which of a server's tools the agent sees, and under which names.

A `ToolView` hides tools (the agent never sees nor can call them) and renames others (to
resolve a clash, or to test an agent against other names), and maps each name the agent calls
back to the server's. Environments hold one (``hide_tools=`` / ``rename_tools=``), so the view
survives snapshots and forks and applies to reference replays too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mcp.types import Tool

from gym_mcp.errors import ConfigError

__all__ = ["ToolView"]


class ToolView:
    """The agent's view of a server's tools.

    Args:
        server: The server's name (for messages).
        hide: Tools the agent never sees nor can call (names as the server lists them).
        rename: ``{server name: name the agent sees}``.
    """

    def __init__(self, server: str, *, hide: Iterable[str] = (), rename: Mapping[str, str] | None = None) -> None:
        self.server = server
        self.hide = frozenset(hide)
        self.rename = dict(rename or {})
        self.tools: dict[str, Tool] = {}
        self._route: dict[str, str] = {}

    def bind(self, tools: list[Tool]) -> dict[str, Tool]:
        """Apply the view to the tools a server lists; returns them by the names the agent sees.

        Raises:
            ConfigError: A hidden or renamed tool the server does not list, or two tools that
                would get the same name.
        """
        names = {t.name for t in tools}
        unknown = sorted((self.hide | set(self.rename)) - names)
        if unknown:
            raise ConfigError(
                f"{self.server}: cannot hide or rename unknown tool(s) {', '.join(unknown)}; "
                f"the server lists: {', '.join(sorted(names))}"
            )
        view: dict[str, Tool] = {}
        route: dict[str, str] = {}
        for tool in tools:
            if tool.name in self.hide:
                continue
            exposed = self.rename.get(tool.name, tool.name)
            if exposed in view:
                raise ConfigError(f"{self.server}: two tools would be called {exposed!r}; rename one")
            view[exposed] = tool if exposed == tool.name else tool.model_copy(update={"name": exposed})
            route[exposed] = tool.name
        self.tools, self._route = view, route
        return view

    def server_name(self, name: str) -> str:
        """The server's name of the tool the agent calls ``name`` (``name`` itself if unknown)."""
        return self._route.get(name, name)
