"""Perturbations between the agent and the live server, as a Gymnasium wrapper.

"When Simulation Lies" (arXiv 2605.11928) finds that agents trained in clean simulators lose
much of their accuracy when tools misbehave at run time. `Perturb` wraps any gym-mcp
environment and lets `CallPerturbation`s act on each tool call the agent makes: before it
reaches the server (an injected error: the call is not sent, so the server's state cannot be
touched) or on its result (what the agent reads; the server did its work). Every injection is
seeded from the episode's seed, so a perturbed episode replays byte for byte, and is listed in
``info["perturbations"]``.

This module ships the transition family's first member, `TransientErrors` (rate limits and
5xx-like failures that succeed on retry); the issue's other families build on the same hook.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import gymnasium as gym

from gym_mcp.errors import ConfigError

__all__ = [
    "MIXES",
    "TRANSIENT_MARKER",
    "CallHook",
    "CallPerturbation",
    "Injection",
    "Perturb",
    "TransientErrors",
    "mix",
]

TRANSIENT_MARKER = "(transient)"
"""Every transient error says so: a careful agent (and the reference policy) retries the call."""


@dataclass(frozen=True)
class Injection:
    """One thing a perturbation did to one call.

    Attributes:
        kind: The perturbation, e.g. ``"transient_error"``.
        family: ``"transition"``, ``"observation"``, ``"action"`` or ``"metadata"``.
        tool: The tool the agent called.
        call: The call's index in the episode (0 for the first call).
        detail: What the agent was shown instead, or what changed.
    """

    kind: str
    family: str
    tool: str
    call: int
    detail: str


class CallHook(Protocol):
    """What the environment asks around each tool call (the `Perturb` wrapper answers)."""

    def before_call(self, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """An error text to return instead of calling the server, or None to call it."""
        ...

    def after_call(self, tool: str, arguments: Mapping[str, Any], output: str, is_error: bool) -> str:
        """The text the agent reads for the server's ``output``."""
        ...


class CallPerturbation:
    """One kind of perturbation of tool calls. Override `before` or `after` (or both).

    Attributes:
        kind: Its name in ``info["perturbations"]``.
        family: The family it belongs to.
    """

    kind = "perturbation"
    family = "transition"

    def before(self, tool: str, arguments: Mapping[str, Any], rng: random.Random) -> str | None:
        """An error text to show instead of calling the server (the call is not sent), or None."""
        return None

    def after(self, tool: str, arguments: Mapping[str, Any], output: str, rng: random.Random) -> str:
        """The text to show for the server's ``output`` (the call did run)."""
        return output

    def new_episode(self) -> None:
        """Forget per-episode bookkeeping."""


_TRANSIENT = (
    "Error: 503 Service Unavailable {marker}: the server is overloaded; nothing was done. Retry the same call.",
    "Error: 429 Too Many Requests {marker}: rate limit reached; nothing was done. Retry the same call.",
    "Error: 502 Bad Gateway {marker}: the upstream service did not answer; nothing was done. Retry the same call.",
)


class TransientErrors(CallPerturbation):
    """Rate limits and 5xx-like errors that go away on retry.

    The call is not sent to the server, so the state is as if it was never made; after
    ``max_in_a_row`` failures of one tool in a row the next call of it always goes through.

    Args:
        p: Probability that a call fails transiently.
        max_in_a_row: Most transient failures of one tool in a row.
    """

    kind = "transient_error"
    family = "transition"

    def __init__(self, p: float = 0.3, max_in_a_row: int = 2) -> None:
        if not 0.0 <= p <= 1.0:
            raise ConfigError(f"TransientErrors: p must be between 0 and 1, got {p!r}")
        if max_in_a_row < 1:
            raise ConfigError(f"TransientErrors: max_in_a_row must be at least 1, got {max_in_a_row!r}")
        self.p = p
        self.max_in_a_row = max_in_a_row
        self._streak: Counter[str] = Counter()

    def new_episode(self) -> None:
        """Start every tool's streak at zero."""
        self._streak.clear()

    def before(self, tool: str, arguments: Mapping[str, Any], rng: random.Random) -> str | None:
        """A transient error with probability ``p`` (not more than ``max_in_a_row`` in a row)."""
        roll, pick = rng.random(), rng.randrange(len(_TRANSIENT))
        if roll >= self.p or self._streak[tool] >= self.max_in_a_row:
            self._streak[tool] = 0
            return None
        self._streak[tool] += 1
        return _TRANSIENT[pick].format(marker=TRANSIENT_MARKER)


class Perturb(gym.Wrapper[Any, Any, Any, Any]):
    """Perturb the tool calls of a gym-mcp environment, reproducibly.

    Args:
        env: A gym-mcp environment (``gym.make("gym_mcp/...")`` or `MCPEnv`).
        perturbations: What to do to the calls, applied in order (the first that injects an
            error wins; results pass through every ``after``).
        seed: Seeds the injections when ``reset`` gets no seed (each episode then draws anew).

    ``info["perturbations"]`` lists this episode's `Injection`s (as dicts) after every step.
    """

    def __init__(self, env: gym.Env[Any, Any], perturbations: Sequence[CallPerturbation], *, seed: int = 0) -> None:
        super().__init__(env)
        core = getattr(env.unwrapped, "core", None)
        if core is None or not hasattr(core, "call_hook"):
            raise ConfigError("Perturb wraps a gym-mcp environment (one made by gym.make('gym_mcp/...'))")
        self.perturbations = list(perturbations)
        self.seed = seed
        self.injected: list[Injection] = []
        self._episodes = 0
        self._calls = 0
        self._rng = random.Random(seed)
        core.call_hook = self

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the environment and the injections (seeded by ``seed``, else by the wrapper's)."""
        self._rng = random.Random(f"perturb:{seed}" if seed is not None else f"perturb:{self.seed}:{self._episodes}")
        self._episodes += 1
        self._calls = 0
        self.injected = []
        for perturbation in self.perturbations:
            perturbation.new_episode()
        obs, info = self.env.reset(seed=seed, options=options)
        info["perturbations"] = []
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Step the environment; ``info["perturbations"]`` holds what was injected so far."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["perturbations"] = [asdict(i) for i in self.injected]
        return obs, reward, terminated, truncated, info

    # -- the CallHook the environment asks -----------------------------------------------------------

    def before_call(self, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """Ask each perturbation in turn; the first error text replaces the call."""
        index = self._calls
        self._calls += 1
        for perturbation in self.perturbations:
            text = perturbation.before(tool, arguments, self._rng)
            if text is not None:
                self.injected.append(Injection(perturbation.kind, perturbation.family, tool, index, text))
                return text
        return None

    def after_call(self, tool: str, arguments: Mapping[str, Any], output: str, is_error: bool) -> str:
        """Pass the server's output through every perturbation's ``after``."""
        for perturbation in self.perturbations:
            changed = perturbation.after(tool, arguments, output, self._rng)
            if changed != output:
                self.injected.append(Injection(perturbation.kind, perturbation.family, tool, self._calls - 1, changed))
                output = changed
        return output


MIXES: dict[str, Callable[[], list[CallPerturbation]]] = {
    "transient": lambda: [TransientErrors(p=0.3)],
}
"""Named perturbation mixes (``gym-mcp eval --perturb NAME``); each call builds fresh perturbations."""


def mix(name: str) -> list[CallPerturbation]:
    """The perturbations of a named mix.

    Raises:
        ConfigError: No mix has that name.
    """
    try:
        return MIXES[name]()
    except KeyError:
        raise ConfigError(f"unknown perturbation mix {name!r}; mixes: {', '.join(sorted(MIXES))}") from None
