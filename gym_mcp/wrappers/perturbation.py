"""What every perturbation is: the hooks it may use, what it records, and the episode it sees.

A `Perturbation` acts at two moments. At reset it may rewrite what the agent is shown for the
whole episode: the instruction (``instruction``) and the tools (``tools``: descriptions,
names, parameters, extra tools), mapping a call made under a changed name back to the server's
(``route``). At each call it may answer in the server's place (``before``: the call is not
sent, so the server's state cannot change) or rewrite what the agent reads (``after``: the
server did its work). It never calls the server itself, which is why a perturbed episode's
final state is the state its successful calls give without the wrapper.

Everything random draws from the episode's `EpisodeContext.rng`, seeded by the `Perturb`
wrapper, so an episode replays byte for byte; what a perturbation did is noted with
`EpisodeContext.note` and listed in ``info["perturbations"]``.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gym_mcp.episode import TRANSIENT_MARKER

__all__ = ["FAMILIES", "TRANSIENT_MARKER", "EpisodeContext", "Injection", "Perturbation", "as_json", "task_values"]


FAMILIES = ("observation", "action", "metadata", "transition")
"""The four parts of the environment "When Simulation Lies" perturbs; the first three are static (fixed at reset)."""


@dataclass(frozen=True)
class Injection:
    """One thing a perturbation did.

    Attributes:
        kind: The perturbation, e.g. ``"transient_error"``.
        family: One of `FAMILIES`.
        tool: The tool concerned ("" for the instruction).
        call: The call's index in the episode (0 for the first), or -1 for what was done at reset.
        detail: What the agent was shown instead, or what changed.
        original: For a rename, the name before it.
        shown: For a rename, the name the agent sees.
    """

    kind: str
    family: str
    tool: str
    call: int
    detail: str
    original: str = ""
    shown: str = ""


@dataclass
class EpisodeContext:
    """What a perturbation knows of the episode it acts on.

    Attributes:
        rng: The episode's generator (shared by the mix's perturbations, in order).
        read_only: Names (as the server lists them) of the tools that only read.
        values: Strings the instruction must keep verbatim (the task's argument values and ids).
        needed: The tools the task's reference calls use (distractors and duplicates are made
            of these first, as the ones that can mislead).
        call: The index of the call being made (-1 at reset).
        injected: What the episode's perturbations did so far.
    """

    rng: random.Random
    read_only: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()
    needed: frozenset[str] = frozenset()
    call: int = -1
    injected: list[Injection] = field(default_factory=list)

    def note(self, perturbation: Perturbation, tool: str, detail: str, *, original: str = "", shown: str = "") -> None:
        """Record that ``perturbation`` did something (at the current call, or at reset)."""
        self.injected.append(
            Injection(perturbation.kind, perturbation.family, tool, self.call, detail, original=original, shown=shown)
        )


class Perturbation:
    """One kind of perturbation. Override the hooks it uses; each default leaves things as they are.

    Attributes:
        kind: Its name in ``info["perturbations"]`` and in mixes.
        family: The family it belongs to (one of `FAMILIES`).
    """

    kind = "perturbation"
    family = "transition"

    def start(self, episode: EpisodeContext) -> None:
        """A new episode begins (forget per-episode bookkeeping here)."""

    def instruction(self, text: str, episode: EpisodeContext) -> str:
        """The instruction the agent is shown for ``text`` (at reset)."""
        return text

    def tools(self, tools: list[dict[str, Any]], episode: EpisodeContext) -> list[dict[str, Any]]:
        """The tools (OpenAI function format) the agent is shown for the episode (at reset).

        ``tools`` is this perturbation's own deep copy: edit it in place or build another list.
        """
        return tools

    def route(self, name: str, arguments: Any) -> tuple[str, Any]:
        """Map a call made under a name this perturbation showed back to the name it was given."""
        return name, arguments

    def before(self, tool: str, arguments: Any, episode: EpisodeContext) -> str | None:
        """An error text to show instead of calling the server (the call is not sent), or None."""
        return None

    def after(self, tool: str, arguments: Any, output: str, episode: EpisodeContext) -> str:
        """The text to show for the server's ``output`` (the call ran and succeeded: errors are not passed here)."""
        return output

    def fork(self) -> Perturbation:
        """An independent copy with this episode's state (for a forked environment)."""
        return copy.deepcopy(self)

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({settings})"


# -- helpers the perturbations share ---------------------------------------------------------------


def as_json(text: str) -> Any:
    """``text`` parsed as JSON, or None when it is not a JSON object or list."""
    if not text or text[0] not in "[{":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


_ID = re.compile(r"\S*\d\S*|[A-Z]{2,}[-_]\S+|\S+@\S+")


def task_values(instruction: str, arguments: Iterable[Any] = ()) -> frozenset[str]:
    """The strings an instruction must keep verbatim: every id-like token and each argument value.

    Args:
        instruction: The task's instruction.
        arguments: The task's argument values (`Task.argument_values`).
    """
    values = {m.group(0).strip(".,;:!?()\"'") for m in _ID.finditer(instruction)}
    for leaf in arguments:
        if isinstance(leaf, str) and leaf:
            values.add(leaf)
        elif isinstance(leaf, int | float) and not isinstance(leaf, bool):
            values.add(str(leaf))
    return frozenset(v for v in values if v)
