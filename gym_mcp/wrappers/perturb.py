"""Perturbations of a live environment, as a Gymnasium wrapper, and the mixes they come in.

"When Simulation Lies" (arXiv 2605.11928) finds that agents trained in clean simulators lose
much of their accuracy when the world misbehaves, over four families: observation (typos and
paraphrases), action space (distractor, duplicate and renamed tools), metadata (misleading
descriptions, cost notes) and transitions (errors, timeouts, bad results at run time).
`Perturb` wraps any gym-mcp environment with a `Mix` of `Perturbation`s (`static` and
`transition` hold this package's kinds): the static ones rewrite what the agent is shown at
reset, the transition ones act on each call. Each episode's injections are seeded from its
reset seed, so it replays byte for byte, and are listed in ``info["perturbations"]``.

A mix may draw only some of its kinds each episode (``per_episode``): this is domain
randomization, for training (``gym-mcp train`` with ``perturb = "static"``) as for evaluation
(``gym-mcp eval --perturb all``). Mixes are named (`MIXES`), or written as a dict or a TOML file::

    per_episode = 1            # each episode draws one of the kinds below
    [[perturbation]]
    kind = "typos"
    rate = 0.1
    [[perturbation]]
    kind = "transient_error"
    p = 0.3
"""

from __future__ import annotations

import copy
import dataclasses
import random
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from mcp.types import Tool

from gym_mcp.env.hooks import CallHook
from gym_mcp.env.mcp import MCPEnv
from gym_mcp.errors import ConfigError
from gym_mcp.tasks import Task
from gym_mcp.wrappers.perturbation import (
    FAMILIES,
    TRANSIENT_MARKER,
    EpisodeContext,
    Injection,
    Perturbation,
    task_values,
)
from gym_mcp.wrappers.static import (
    CostNotes,
    DistractorTools,
    DuplicateTools,
    MisleadingDescriptions,
    Paraphrase,
    RenamedParams,
    RenamedTools,
    StrippedEnums,
    Typos,
)
from gym_mcp.wrappers.transition import (
    Latency,
    MalformedResults,
    PaginatedLists,
    ReorderedLists,
    SchemaDrift,
    StaleReads,
    Timeouts,
    TransientErrors,
    TruncatedResults,
)

__all__ = [
    "FAMILIES",
    "KINDS",
    "MIXES",
    "TRANSIENT_MARKER",
    "Injection",
    "Mix",
    "Perturb",
    "PerturbHook",
    "Perturbation",
    "mix",
]

KINDS: dict[str, type[Perturbation]] = {
    cls.kind: cls
    for cls in (
        Typos,
        Paraphrase,
        DistractorTools,
        DuplicateTools,
        StrippedEnums,
        RenamedParams,
        RenamedTools,
        MisleadingDescriptions,
        CostNotes,
        TransientErrors,
        Timeouts,
        TruncatedResults,
        MalformedResults,
        Latency,
        PaginatedLists,
        ReorderedLists,
        StaleReads,
        SchemaDrift,
    )
}
"""Every perturbation kind by name (what a mix's ``kind`` names)."""


@dataclass
class Mix:
    """Perturbations to apply together, or to draw from each episode.

    Attributes:
        name: Its name in reports (``"NAME [MIX]"``).
        perturbations: The perturbations, applied in this order.
        per_episode: How many of them each episode draws (domain randomization); None for all.
    """

    name: str
    perturbations: list[Perturbation] = field(default_factory=list)
    per_episode: int | None = None

    def __post_init__(self) -> None:
        if self.per_episode is not None and not 1 <= self.per_episode <= max(1, len(self.perturbations)):
            raise ConfigError(
                f"mix {self.name!r}: per_episode must be between 1 and {len(self.perturbations)}, "
                f"got {self.per_episode!r}"
            )

    def draw(self, rng: random.Random) -> list[Perturbation]:
        """This episode's perturbations (in the mix's order)."""
        if self.per_episode is None or self.per_episode >= len(self.perturbations):
            return list(self.perturbations)
        chosen = set(rng.sample(range(len(self.perturbations)), self.per_episode))
        return [p for i, p in enumerate(self.perturbations) if i in chosen]

    @property
    def kinds(self) -> list[str]:
        """The kinds in the mix."""
        return [p.kind for p in self.perturbations]


class PerturbHook(CallHook):
    """The `CallHook` an environment asks during one perturbed episode (made by `Perturb`).

    It holds the episode's drawn perturbations, the tools they show and what they did; a forked
    environment gets a copy (`fork`), so forks of a perturbed episode stay perturbed the same way.

    Args:
        active: The perturbations drawn for the episode.
        rng: The episode's generator (the draw of ``active`` came from it too).
    """

    def __init__(self, active: Sequence[Perturbation] = (), rng: random.Random | None = None) -> None:
        self.active: list[Perturbation] = list(active)
        self.episode = EpisodeContext(rng or random.Random(0))
        self.shown: list[dict[str, Any]] | None = None  # None: the environment's own tools (before start)
        self.calls = 0

    def start(self, task: Task, tools: list[dict[str, Any]], server_tools: Mapping[str, Tool]) -> None:
        """Begin the episode: start every perturbation, then let each rewrite the tools shown."""
        self.episode = EpisodeContext(
            self.episode.rng,
            read_only=frozenset(name for name, tool in server_tools.items() if _read_only(tool)),
            values=task_values(task.instruction, task.argument_values()),
            needed=frozenset(str(c.get("name", "")) for c in task.reference_calls),
        )
        for perturbation in self.active:
            perturbation.start(self.episode)
        for perturbation in self.active:
            tools = perturbation.tools(copy.deepcopy(tools), self.episode)
        self.shown = tools

    def present_instruction(self, text: str) -> str:
        """The opening message after every perturbation's ``instruction`` (e.g. typos)."""
        for perturbation in self.active:
            text = perturbation.instruction(text, self.episode)
        return text

    def fork(self) -> PerturbHook:
        """An independent copy at this point of the episode (the same draws from here on)."""
        twin = PerturbHook([p.fork() for p in self.active])
        rng = random.Random()
        rng.setstate(self.episode.rng.getstate())
        twin.episode = dataclasses.replace(self.episode, rng=rng, injected=list(self.episode.injected))
        twin.shown = copy.deepcopy(self.shown)
        twin.calls = self.calls
        return twin

    def present_tools(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The episode's perturbed tools (the environment's own before the episode starts)."""
        return tools if self.shown is None else self.shown

    def route_call(self, tool: str, arguments: Any) -> tuple[str, Any]:
        """Undo the renames, last applied first."""
        for perturbation in reversed(self.active):
            tool, arguments = perturbation.route(tool, arguments)
        return tool, arguments

    def before_call(self, tool: str, arguments: Any) -> str | None:
        """Ask each perturbation in turn; the first error text replaces the call."""
        self.episode.call = self.calls
        self.calls += 1
        for perturbation in self.active:
            text = perturbation.before(tool, arguments, self.episode)
            if text is not None:
                return text
        return None

    def after_call(self, tool: str, arguments: Any, output: str, is_error: bool) -> str:
        """Pass the server's output through every perturbation's ``after`` (errors pass unchanged)."""
        if is_error:
            return output
        for perturbation in self.active:
            output = perturbation.after(tool, arguments, output, self.episode)
        return output


class Perturb(gym.Wrapper[Any, Any, Any, Any]):
    """Perturb a gym-mcp environment, reproducibly.

    Args:
        env: A gym-mcp environment over MCP servers (``gym.make("gym_mcp/...")`` or `MCPEnv`).
        perturbations: A `Mix`, a mix's name, a dict or TOML path (see `mix`), or a list of
            `Perturbation`s applied together.
        seed: Seeds the injections when ``reset`` gets no seed (each episode then draws anew).

    After ``reset`` and every ``step``, ``info["perturbations"]`` lists the episode's
    `Injection`s (as dicts) and ``info["perturbation_kinds"]`` the kinds drawn for it. A call
    made under a name the agent was shown is mapped back before it reaches the server, and
    recorded (for rewards) under the server's name. ``env.unwrapped.fork(n)`` gives forks that
    go on under the same perturbations.

    Raises:
        ConfigError: ``env`` is not a gym-mcp environment over MCP servers, or the mix is bad.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        perturbations: Mix | Sequence[Perturbation] | str | Mapping[str, Any] | Path,
        *,
        seed: int = 0,
    ) -> None:
        super().__init__(env)
        target = env.unwrapped
        if not isinstance(target, MCPEnv):
            raise ConfigError("Perturb wraps a gym-mcp environment over MCP servers (gym.make('gym_mcp/...'))")
        self.target = target
        self.mix = perturbations if isinstance(perturbations, Mix) else mix(perturbations)
        self.seed = seed
        self.hook = PerturbHook(rng=random.Random(seed))
        self._episodes = 0
        target.set_call_hook(self.hook)

    @property
    def active(self) -> list[Perturbation]:
        """The perturbations drawn for this episode."""
        return self.hook.active

    @property
    def injected(self) -> list[Injection]:
        """This episode's injections so far."""
        return self.hook.episode.injected

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Draw the episode's perturbations and reset the environment, which asks them what to show."""
        self._draw(seed)
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._with_injections(info)

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """`reset` as a coroutine on gym-mcp's own loop (see `gym_mcp.env.SyncEnv.areset`)."""
        self._draw(seed)
        obs, info = await self.target.areset(seed=seed, options=options)
        return obs, self._with_injections(info)

    async def astep(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """`step` as a coroutine on gym-mcp's own loop."""
        obs, reward, terminated, truncated, info = await self.target.astep(action)
        return obs, reward, terminated, truncated, self._with_injections(info)

    def _draw(self, seed: int | None) -> None:
        """Draw the episode's perturbations; the environment starts them once the task is chosen."""
        rng = random.Random(f"perturb:{seed}" if seed is not None else f"perturb:{self.seed}:{self._episodes}")
        self._episodes += 1
        self.hook = PerturbHook(self.mix.draw(rng), rng)
        self.target.set_call_hook(self.hook)

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Step the environment; ``info["perturbations"]`` holds what was injected so far."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._with_injections(info)

    def _with_injections(self, info: dict[str, Any]) -> dict[str, Any]:
        info["perturbations"] = [asdict(i) for i in self.hook.episode.injected]
        info["perturbation_kinds"] = [p.kind for p in self.hook.active]
        return info


def _read_only(tool: Any) -> bool:
    annotations = getattr(tool, "annotations", None)
    return annotations is not None and getattr(annotations, "read_only_hint", None) is True


# -- mixes -------------------------------------------------------------------------------------------

_STATIC = ("observation", "action", "metadata")


def _family(*families: str) -> list[Perturbation]:
    return [cls() for cls in KINDS.values() if cls.family in families]


MIXES: dict[str, Callable[[], Mix]] = {
    "transient": lambda: Mix("transient", [TransientErrors(p=0.3)]),
    "observation": lambda: Mix("observation", _family("observation"), per_episode=1),
    "action": lambda: Mix("action", _family("action"), per_episode=1),
    "metadata": lambda: Mix("metadata", _family("metadata"), per_episode=1),
    "static": lambda: Mix("static", _family(*_STATIC), per_episode=1),
    "transition": lambda: Mix("transition", _family("transition"), per_episode=1),
    "all": lambda: Mix("all", _family(*FAMILIES), per_episode=1),
}
"""Named mixes; each call builds fresh perturbations. All but ``transient`` draw one kind per
episode (so every episode's result is that kind's), from one family or from several."""


def mix(spec: str | Path | Mapping[str, Any] | Sequence[Perturbation]) -> Mix:
    """A mix from a name in `MIXES`, a TOML file, a dict (the TOML's content), or perturbations.

    A dict has ``perturbation``: a list of ``{"kind": ..., **settings}`` (kinds from `KINDS`),
    and optionally ``name`` and ``per_episode``.

    Raises:
        ConfigError: An unknown name or kind, a setting the kind does not take, a file that
            cannot be read.
    """
    if isinstance(spec, Path) or (isinstance(spec, str) and spec.endswith(".toml")):
        path = Path(spec)
        try:
            data = tomllib.loads(path.read_text())
        except OSError as exc:
            raise ConfigError(f"perturbation mix {path}: cannot read it ({exc.strerror})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"perturbation mix {path}: not valid TOML ({exc})") from None
        return _from_dict({"name": path.stem, **data}, where=str(path))
    if isinstance(spec, str):
        try:
            return MIXES[spec]()
        except KeyError:
            raise ConfigError(
                f"unknown perturbation mix {spec!r}; mixes: {', '.join(sorted(MIXES))}, or a .toml file"
            ) from None
    if isinstance(spec, Mapping):
        return _from_dict(spec, where="perturbation mix")
    perturbations = list(spec)
    if not all(isinstance(p, Perturbation) for p in perturbations):
        raise ConfigError("a mix is a list of Perturbation objects, a name, a dict or a .toml file")
    return Mix("+".join(p.kind for p in perturbations) or "none", perturbations)


def _from_dict(data: Mapping[str, Any], *, where: str) -> Mix:
    entries = data.get("perturbation", [])
    unknown_keys = set(data) - {"name", "per_episode", "perturbation"}
    if unknown_keys:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown_keys))}; keys: name, per_episode, perturbation"
        )
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{where}: needs a non-empty list 'perturbation' of {{kind = ..., settings}}")
    perturbations: list[Perturbation] = []
    for i, entry in enumerate(entries, 1):
        settings = dict(entry) if isinstance(entry, Mapping) else {}
        kind = settings.pop("kind", None)
        if kind not in KINDS:
            raise ConfigError(f"{where}: perturbation {i}: unknown kind {kind!r}; kinds: {', '.join(sorted(KINDS))}")
        if "seconds" in settings and isinstance(settings["seconds"], list):
            settings["seconds"] = tuple(settings["seconds"])
        try:
            perturbations.append(KINDS[kind](**settings))
        except TypeError as exc:
            raise ConfigError(f"{where}: perturbation {i} ({kind}): {exc}") from None
    per_episode = data.get("per_episode")
    if per_episode is not None and not isinstance(per_episode, int):
        raise ConfigError(f"{where}: per_episode must be an integer, got {per_episode!r}")
    return Mix(str(data.get("name", "custom")), perturbations, per_episode)
