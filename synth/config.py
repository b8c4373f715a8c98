"""What a synthesis run is asked for (`SynthConfig`) and what it gives (`SynthResult`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from gym_mcp.errors import SynthError
from gym_mcp.tasks import Task

__all__ = ["IRRELEVANT_REQUESTS", "SynthConfig", "SynthResult"]

IRRELEVANT_REQUESTS = (
    "What will the weather be like in Lisbon this weekend?",
    "Write me a short poem about autumn leaves.",
    "Translate 'good morning' into Japanese.",
    "Who won the football world cup in 2014?",
    "Recommend a good science-fiction novel for a long flight.",
    "How many minutes should I boil an egg for a soft yolk?",
    "Explain the difference between a virus and a bacterium in two sentences.",
    "What is the capital of Australia?",
    "Suggest three names for a golden retriever puppy.",
    "How do I remove a red wine stain from a cotton shirt?",
    "What time is sunset in Oslo today?",
    "Give me a vegetarian lasagna recipe.",
    "Summarize the plot of Hamlet in one paragraph.",
    "Which planet in the solar system has the most moons?",
    "Teach me three basic phrases in Italian.",
    "What's a good stretching routine after running?",
    "Convert 72 degrees Fahrenheit to Celsius.",
    "Tell me a joke about programmers.",
    "What are the rules of chess castling?",
    "How tall is Mount Kilimanjaro?",
    "Plan a two-day sightseeing trip to Kyoto.",
    "What is the best way to learn touch typing?",
    "Why is the sky blue?",
    "List some board games that work well for two players.",
    "How much water should a houseplant get in winter?",
    "Write a haiku about the ocean.",
    "What does the idiom 'break the ice' mean?",
    "Recommend a podcast about history.",
    "How do I change a flat bicycle tire?",
    "What is the boiling point of water at high altitude?",
)


@dataclass(frozen=True)
class SynthConfig:
    """Settings of a synthesis run.

    Attributes:
        n: Tasks to produce.
        seed: Seed of every random choice (same seed, same tasks).
        data_seed: The server data seed the tasks start from.
        max_chain: Longest chain (1-5).
        length_weights: Relative weight of chain lengths 1..max_chain.
        variants: Relative weight of each variant label.
        jaccard: Near-duplicate threshold over call sequences.
        heldout_fraction: Share of tools (templates) and of entities reserved for the test split.
        heldout_tools: Reserve whole tools for the test split (tasks that call them are held out:
            a test of tools never seen in training). False holds out entities only, and a
            held-out task whose tool no train task calls moves to the train split: every tool
            a test task calls is trained, and held-out tasks are new requests on new entities.
        optional_rate: Chance of passing an optional parameter that has values and a template slot.
        max_attempts: Candidate chains tried per task wanted before giving up.
        ask_to_confirm: Tasks for a run with a simulated user, whose tools then say to ask before
            an irreversible action (`gym_mcp.tasks.dialogue.confirmation_note`): a complete or
            distractor task with such an action carries a user too, and its reference dialogue
            asks first, as a ``confirmation`` task's does. False (tasks played without a user):
            such a task's reference acts at once, which with a user present would teach the
            model to ignore what the tool says.
        nondeterministic: What to do with a task whose replay does not reach the state the run
            that made it reached, replayed twice from fresh copies of its initial state, when the
            two replays end in different states (a server that mints random ids or timestamps the
            spec does not declare volatile). ``"volatile"`` (the default): leave the parts they
            differ in (table columns, JSON keys, files) out of every task's fingerprint, carry
            minted values from call to call (``metadata["flows"]``), and say so in the report
            and on stderr with the spec lines that declare them. ``"refuse"``: drop the task,
            the parts named in the rejections.
    """

    n: int = 500
    seed: int = 0
    data_seed: int = 0
    max_chain: int = 5
    length_weights: tuple[float, ...] = (0.3, 0.3, 0.2, 0.12, 0.08)
    variants: Mapping[str, float] = field(
        default_factory=lambda: {"complete": 0.6, "missing_param": 0.16, "distractors": 0.2, "irrelevant": 0.04}
    )
    jaccard: float = 0.7
    heldout_fraction: float = 0.08
    heldout_tools: bool = True
    optional_rate: float = 0.3
    max_attempts: int = 30
    ask_to_confirm: bool = False
    nondeterministic: Literal["volatile", "refuse"] = "volatile"

    @classmethod
    def dialogue(cls, **fields: Any) -> SynthConfig:
        """Settings for dialogue tasks (a simulated user): the four dialogue kinds and plain tasks, equally.

        ``missing_param`` (a value only asking gets), ``staged`` (a second, dependent request
        revealed once the first is done), ``change_of_mind`` (a value revised at the first
        confirmation) and ``confirmation`` (an irreversible action that needs a yes first); every
        task carries its user and its reference dialogue, replayed against the scripted user.
        """
        variants = {"complete": 0.2, "missing_param": 0.2, "staged": 0.2, "change_of_mind": 0.2, "confirmation": 0.2}
        return cls(**{"variants": variants, "max_attempts": 60, **fields})

    def __post_init__(self) -> None:
        if self.n < 1:
            raise SynthError(f"n must be at least 1, got {self.n}")
        if not 1 <= self.max_chain <= 5:
            raise SynthError(f"max_chain must be 1-5, got {self.max_chain}")
        if self.nondeterministic not in ("volatile", "refuse"):
            raise SynthError(f"nondeterministic must be 'volatile' or 'refuse', got {self.nondeterministic!r}")


@dataclass
class SynthResult:
    """Tasks and the numbers behind them.

    Attributes:
        tasks: The kept, replay-verified tasks.
        stats: Counts and timings (see `report_text`).
    """

    tasks: list[Task]
    stats: dict[str, Any]
