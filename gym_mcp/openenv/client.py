"""`GymMCPEnvClient`: the OpenEnv client of a gym-mcp environment server.

Constructed and used as any OpenEnv client (an ``EnvClient`` over the server's WebSocket
session; ``async with`` or ``.sync()``), with the typed action, observation and state of
`gym_mcp.openenv.models`, and a few calls of its own::

    from gym_mcp.openenv import GymMCPEnvClient

    with GymMCPEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        first = env.reset(task_index=0)              # first.observation.text: the user's request
        tools = first.observation.tools               # OpenEnv Tool models (name, description, input_schema)
        r = env.step(GymMCPEnvClient.call("get_balance", account_id="A-1001"))
        r = env.step(GymMCPEnvClient.say("Your balance is 120.50 EUR."))   # the final answer
        r.reward, r.done                               # the episode's reward on its last step

OpenEnv's own ``GenericEnvClient`` and ``MCPToolClient`` work against the same server; this
client adds the token (``token=`` or ``$GYM_MCP_TOKEN``) and the infrastructure routes
(`snapshot`, `restore`, `fork`) that training code uses, never the agent.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

import httpx
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from gym_mcp.openenv.models import GymMCPAction, GymMCPObservation, GymMCPState

__all__ = ["GymMCPEnvClient"]

TOKEN_ENV = "GYM_MCP_TOKEN"


class GymMCPEnvClient(EnvClient[GymMCPAction, GymMCPObservation, GymMCPState]):
    """A session of a gym-mcp environment served by ``gym-mcp serve-openenv``.

    Args:
        base_url: The server (``http://HOST:PORT`` or ``ws://HOST:PORT``).
        token: The server's bearer token (default ``$GYM_MCP_TOKEN``; None for a server without one).
        **kwargs: What OpenEnv's ``EnvClient`` takes (``connect_timeout_s``, ``message_timeout_s``, ...).
    """

    def __init__(self, base_url: str | None = None, *, token: str | None = None, **kwargs: Any) -> None:
        self._token = token if token is not None else (os.environ.get(TOKEN_ENV) or None)
        super().__init__(base_url=base_url, **kwargs)

    # -- actions ---------------------------------------------------------------------------------

    @staticmethod
    def call(tool_name: str, /, **arguments: Any) -> GymMCPAction:
        """The action that calls ``tool_name`` with ``arguments``."""
        return GymMCPAction(type="call_tool", tool_name=tool_name, arguments=arguments)

    @staticmethod
    def say(message: dict[str, Any] | str) -> GymMCPAction:
        """The action that sends a whole assistant turn (an OpenAI message, or text: the final answer)."""
        return GymMCPAction(type="message", message=message)

    # -- EnvClient's contract ----------------------------------------------------------------------

    def _set_base_url(self, base_url: str) -> None:
        super()._set_base_url(base_url)
        token = getattr(self, "_token", None)
        ws_url: str | None = getattr(self, "_ws_url", None)
        if token and ws_url is not None:  # OpenEnv's client sets no headers on its WebSocket
            self._ws_url = f"{ws_url}?token={quote(token, safe='')}"

    def _create_session_client(self) -> EnvClient[Any, Any, Any]:
        client = super()._create_session_client()
        assert isinstance(client, GymMCPEnvClient)
        assert self._base_url is not None
        client._token = self._token
        client._set_base_url(self._base_url)
        return client

    def _step_payload(self, action: GymMCPAction) -> dict[str, Any]:
        return action.model_dump(exclude_defaults=False)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[GymMCPObservation]:
        obs = GymMCPObservation.model_validate(
            {**payload.get("observation", {}), "reward": payload.get("reward"), "done": payload.get("done", False)}
        )
        return StepResult(observation=obs, reward=payload.get("reward"), done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> GymMCPState:
        return GymMCPState.model_validate(payload)

    # -- training infrastructure -------------------------------------------------------------------

    def snapshot(self) -> Any:
        """Save this session's episode on the server; returns the snapshot's id."""
        return self._dispatch(self._snapshot_async)

    def restore(self, snapshot_id: str) -> Any:
        """Continue this session from a snapshot the server saved (this session's or another's)."""
        return self._dispatch(lambda: self._restore_async(snapshot_id))

    def fork(self, n: int) -> Any:
        """``n`` new sessions at exactly this point of the episode (each its own state), connected."""
        return self._dispatch(lambda: self._fork_async(n))

    async def _snapshot_async(self) -> str:
        state = await self._state_async()
        data = await self._post(f"/gym-mcp/sessions/{state.session}/snapshot", None)
        return str(data["snapshot"])

    async def _restore_async(self, snapshot_id: str) -> GymMCPState:
        state = await self._state_async()
        data = await self._post(f"/gym-mcp/sessions/{state.session}/restore", {"snapshot": snapshot_id})
        return GymMCPState.model_validate(data)

    async def _fork_async(self, n: int) -> list[GymMCPEnvClient]:
        snapshot_id = await self._snapshot_async()
        forks: list[GymMCPEnvClient] = []
        for _ in range(n):
            child = await self.new_session()
            assert isinstance(child, GymMCPEnvClient)
            await child._restore_async(snapshot_id)
            forks.append(child)
        return forks

    async def _post(self, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        assert self._base_url is not None
        base = self._base_url.replace("ws://", "http://", 1).replace("wss://", "https://", 1)
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=self._message_timeout) as http:
            response = await http.post(path, json=body)
            response.raise_for_status()
            data: dict[str, Any] = response.json()
            return data
