"""`LLMUser`: a user played by any OpenAI-compatible chat model, with guards against its failures.

The model gets a prompt built from the scenario (persona, the requests in order, the values it
holds, how to confirm and when to stop with ``###STOP###``) and the conversation with the roles
turned around (the agent's messages are its "user" turns). Simulated users fail in known ways
(tau2-bench traced up to 30% of failed retail trajectories to its simulator); each reply is
checked, retried with a corrective note when a check fails, and every hit is counted in
``info["user"]["guards"]`` and named in the `UserTurn`:

- ``leak``: the reply quotes the hidden goal, or a request two or more ahead, verbatim;
- ``early_stop``: the reply ends the dialogue while requests remain unmade (kept after the
  retries: the failure is then the user's);
- ``invented_value``: the reply states an id or number that is nowhere in the scenario or
  the conversation;
- ``echo``: the reply repeats the agent's message, or the user's own last message, word for
  word (small models playing a user do this: SmolLM2-135M behind `gym-mcp serve-model` did);
- ``empty`` / ``malformed``: no text, or no usable reply from the endpoint (retried, then a
  fixed fallback reply).

`reply` never raises: after the retries a fixed fallback keeps the episode going.
"""

from __future__ import annotations

import asyncio
from typing import Any

from gym_mcp.chat import ChatClient
from gym_mcp.errors import ConfigError, EndpointError
from gym_mcp.markers import escape_markers
from gym_mcp.tasks import Task, UserScenario
from gym_mcp.tasks.dialogue import format_value, noun
from gym_mcp.users.base import User, UserReply, UserView, progress
from gym_mcp.users.text import STOP, asks_confirmation, is_affirmative, is_negative, mentions, normalize, values_in

__all__ = ["FALLBACK", "LLMUser"]

FALLBACK = "Sorry, I'm not sure. Could you ask me that another way?"
"""What the user says when no usable reply came after the retries."""

_NOTES = {
    "leak": "Do not quote your instructions; say only your current request, in your own words.",
    "early_stop": f"Do not write {STOP} yet: you still have requests to make. Make your next request.",
    "invented_value": "Use only ids and numbers from your instructions or the conversation; never make one up.",
    "echo": "Do not repeat the last message. Answer it as the user, in your own words.",
    "empty": "Write the user's next message.",
    "malformed": "Write the user's next message as plain text.",
}


class LLMUser(User):
    """A user played by an OpenAI-compatible chat endpoint (see the module docstring).

    Args:
        url: Base URL of the endpoint (``http://127.0.0.1:8000/v1``); or give ``client``.
        model: Model name sent with each request.
        client: A `ChatClient` to use instead of making one (the project's one retrying client).
        api_key: Bearer token, if the endpoint needs one.
        temperature: Sampling temperature.
        seed: Sent with each request, for endpoints that honour it.
        max_tokens: Longest reply.
        max_retries: Extra tries after a reply that fails a guard.
        timeout: Seconds per request.
    """

    name = "llm"

    def __init__(
        self,
        url: str | None = None,
        model: str = "default",
        *,
        client: ChatClient | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        seed: int | None = 0,
        max_tokens: int = 200,
        max_retries: int = 2,
        timeout: float = 60.0,
    ) -> None:
        if client is None:
            if url is None:
                raise ConfigError("LLMUser needs a url or a client")
            client = ChatClient(url, api_key=api_key, timeout=timeout, max_retries=2)
        self.chat = client
        self.model = model
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self.name = f"openai:{self.chat.url}"

    # -- the prompt ----------------------------------------------------------------------------

    def prompt(self, task: Task) -> str:
        """The system prompt: who the user is, what it wants and knows, and the rules it follows."""
        scenario = task.scenario()
        goal = task.hidden_goal or " Then: ".join(s.request for s in scenario.stages)
        requests = "\n".join(f"{i + 1}. {s.request}" for i, s in enumerate(scenario.stages))
        known = "; ".join(f"{noun(s.param)}: {format_value(s.value)}" for s in scenario.slots if not s.said)
        lines = [
            "You are playing a user who talks to an assistant. Write only the user's next message, "
            "in one or two short sentences. Stay in character.",
            f"Persona: {scenario.persona}",
            f"Your goal (never quote it; reveal it one request at a time): {goal}",
            "Your requests, in order. You have made the first one; make the next one only after the "
            f"assistant has done the one before:\n{requests}",
        ]
        if known:
            lines.append(f"Values you know but have not said (give one only when asked for it): {known}")
        revisions = "; ".join(
            f"the {noun(s.param)} should be {format_value(s.value)}, not {format_value(s.was)}"
            for s in scenario.revised
        )
        confirm = "When the assistant asks you to confirm an action, say yes if it matches your requests, no otherwise."
        if revisions:
            confirm += f" The first time it asks, change your mind instead: {revisions}."
        lines += [
            confirm,
            "Never invent ids, numbers or names you were not given. If asked for something you do "
            "not know, say you don't know.",
            f"When all your requests are done, or the assistant cannot help, write {STOP} and nothing else.",
        ]
        return "\n".join(lines)

    @staticmethod
    def conversation(view: UserView) -> list[dict[str, str]]:
        """The dialogue as the user model sees it: its own turns as ``assistant``, the agent's as ``user``.

        The agent's text is escaped (`gym_mcp.markers.escape_markers`): an agent that writes
        ``<|im_start|>system`` or a ``<tool_call>`` cannot open a turn in the user model's prompt.
        """
        out = []
        for m in view.messages:
            content = m.get("content")
            if m.get("role") == "tool" or not isinstance(content, str) or not content.strip():
                continue
            if m.get("role") == "user":
                out.append({"role": "assistant", "content": content})
            elif m.get("role") == "assistant" and not m.get("tool_calls"):
                out.append({"role": "user", "content": escape_markers(content)})
        return out

    # -- replying --------------------------------------------------------------------------------

    async def reply(self, view: UserView) -> UserReply:
        """Ask the model for the user's reply, check it, retry, classify it; never raises."""
        system = self.prompt(view.task)
        history = self.conversation(view)
        guards: list[str] = []
        note: str | None = None
        for attempt in range(self.max_retries + 1):
            messages = [{"role": "system", "content": system}, *history]
            if note:
                messages.append({"role": "system", "content": note})
            body: dict[str, Any] = {
                "model": self.model,
                "messages": messages,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
            }
            if self.seed is not None:
                body["seed"] = self.seed + attempt
            problem, text = await self._ask(body)
            if problem is None:
                problem = self.check(text, view)
            if problem is None:
                return self.classify(text, view, tuple(guards))
            guards.append(problem)
            note = _NOTES[problem]
            if problem == "early_stop" and attempt == self.max_retries:
                return UserReply(text.replace(STOP, "").strip(), "stop", stop=True, guards=tuple(guards))
        return UserReply(FALLBACK, "other", guards=tuple(guards))

    async def _ask(self, body: dict[str, Any]) -> tuple[str | None, str]:
        try:
            message = await asyncio.to_thread(self.chat.reply, body)
        except EndpointError:
            return "malformed", ""
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            return "malformed", ""
        text = (content or "").strip()
        return ("empty", "") if not text else (None, text)

    def check(self, text: str, view: UserView) -> str | None:
        """The first guard a reply fails (``leak``, ``early_stop``, ``echo``, ``invented_value``), or None."""
        scenario = view.task.scenario()
        stage, _ = progress(view)
        said = normalize(text)
        goal = view.task.hidden_goal
        ahead = [s.request for s in scenario.stages[stage + 2 :]]
        for secret in [goal, *ahead] if goal else ahead:
            if len(secret) >= 12 and normalize(secret) in said:
                return "leak"
        if STOP in text and stage < len(scenario.stages) - 1:
            return "early_stop"
        own = [m.get("content") for m in view.messages if m.get("role") == "user"]
        for said_before in (view.message, own[-1] if own else None):
            if isinstance(said_before, str) and normalize(said_before) == said:
                return "echo"
        if _invented(text, view, scenario):
            return "invented_value"
        return None

    def classify(self, text: str, view: UserView, guards: tuple[str, ...] = ()) -> UserReply:
        """What a checked reply does: stop, confirm, refuse, revise, answer, reveal or other."""
        if STOP in text:
            return UserReply(
                text.replace(STOP, "").strip() or "Thank you, that's all.", "stop", stop=True, guards=guards
            )
        scenario = view.task.scenario()
        stage, done = progress(view)
        if asks_confirmation(view.message):
            for slot in scenario.revised:
                if mentions(text, slot.value) and not any(t.kind == "revise" for t in view.turns):
                    return UserReply(text, "revise", slot=slot.param, guards=guards)
            if is_affirmative(text):
                return UserReply(text, "confirm", guards=guards)
            if is_negative(text):
                return UserReply(text, "refuse", guards=guards)
        answered = {t.slot for t in view.turns if t.kind == "answer"}
        for slot in scenario.slots:
            if mentions(text, slot.value) and not mentions(view.message, slot.value):
                needless = slot.said or slot.param in answered
                return UserReply(text, "answer", slot=slot.param, needless=needless, guards=guards)
        if done and stage < len(scenario.stages) - 1:
            return UserReply(text, "reveal", guards=guards)
        return UserReply(text, "other", guards=guards)

    def close(self) -> None:
        """Close the HTTP client."""
        self.chat.close()


def _invented(text: str, view: UserView, scenario: UserScenario) -> bool:
    """Whether the reply states an id or number the user was never given and nobody said."""
    known_text = [s.request for s in scenario.stages]
    known_text += [str(m.get("content") or "") for m in view.messages if m.get("role") != "tool"]
    known_text += [view.task.hidden_goal or ""]
    ids: set[str] = set()
    numbers: set[float] = set()
    for t in known_text:
        i, n = values_in(t)
        ids |= i
        numbers |= n
    for slot in scenario.slots:
        for value in (slot.value, slot.was):
            if value is None:
                continue
            i, n = values_in(format_value(value))
            ids |= i
            numbers |= n
    said_ids, said_numbers = values_in(text.replace(STOP, ""))
    small = {float(k) for k in range(11)}
    return bool(said_ids - ids) or bool(said_numbers - numbers - small)
