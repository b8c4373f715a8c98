"""Rewards: functions of a finished episode.

A reward function takes the `Episode` (the task, every call with its outcome, the final
answer, the final state's fingerprint) and returns a float. The environment calls it once,
when the episode ends; intermediate steps get 0. The default is `state_match`.

Besides `state_match`, this module holds the terms of the two recipes gym-mcp implements,
each a small pure function of the episode (no judge model):

* `success`: the final state matches the task's expected fingerprint and, when the task has
  an expected answer, the final answer holds its values (`answer_match`).
* `validity`, `coverage`, `name_precision`, `argument_agreement`, `abstention` and
  `efficiency`: PROVE's process terms (see ``shared/PAPERS.md``).

`CompositeReward` combines them with weights: `CompositeReward.prove` is PROVE's weighted
sum, `CompositeReward.mua_rl` MUA-RL's binary success. Its `CompositeReward.terms` (or
`all_terms` for any other reward function) lists every term, and the environment puts them in
``info["reward_terms"]`` at the end of an episode.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.tasks import Task

__all__ = [
    "CallRecord",
    "CompositeReward",
    "Episode",
    "RewardFn",
    "abstention",
    "align_calls",
    "all_terms",
    "answer_match",
    "argument_agreement",
    "coverage",
    "efficiency",
    "efficiency_budget",
    "name_precision",
    "state_match",
    "success",
    "validity",
]


@dataclass(frozen=True)
class CallRecord:
    """One attempted tool call and what came of it.

    Attributes:
        name: Tool name as the agent sent it.
        arguments: Arguments as the agent sent them.
        output: What the agent was shown.
        status: ``"ok"``, ``"tool_error"`` (the tool ran and refused), ``"invalid"`` (never
            reached the server: unknown tool, bad arguments), ``"timeout"`` or ``"crash"``.
        step: The step the call was made in.
        known_name: The tool name exists in the environment.
        valid_arguments: The arguments passed the tool's schema (required keys, types).
    """

    name: str
    arguments: Any
    output: str
    status: str
    step: int
    known_name: bool = False
    valid_arguments: bool = False

    @property
    def ok(self) -> bool:
        """True when the call ran without error."""
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "name": self.name,
            "arguments": self.arguments,
            "output": self.output,
            "status": self.status,
            "step": self.step,
            "known_name": self.known_name,
            "valid_arguments": self.valid_arguments,
        }


@dataclass(frozen=True)
class Episode:
    """A finished (or truncated) episode, as reward functions see it.

    Attributes:
        task: The task.
        calls: Every attempted call, in order.
        messages: The conversation in OpenAI chat format.
        final_answer: The agent's closing text (None when truncated).
        final_fingerprint: Fingerprint of the server state at the end.
        terminated: The agent ended the episode with an answer.
        truncated: The episode hit ``max_steps``.
    """

    task: Task
    calls: tuple[CallRecord, ...]
    messages: tuple[Mapping[str, Any], ...]
    final_answer: str | None
    final_fingerprint: str
    terminated: bool
    truncated: bool
    extra: Mapping[str, Any] = field(default_factory=dict)


RewardFn = Callable[[Episode], float]


def state_match(episode: Episode) -> float:
    """1.0 when the final state matches the task's expected fingerprint, else 0.0.

    A task without an expected fingerprint cannot be judged by state and scores 0.0.
    """
    expected = episode.task.expected_fingerprint
    if expected is None:
        return 0.0
    return 1.0 if episode.final_fingerprint == expected else 0.0


# -- success: final state and final answer ------------------------------------------------------


def success(episode: Episode) -> bool:
    """Whether the episode completed its task (MUA-RL's criterion, plus the answer for read tasks).

    The final state must match the task's expected fingerprint (a task without one never
    succeeds) and, when the task has an expected answer, `answer_match` must be 1.0. A request
    with no reference calls (an irrelevant one) is completed only by abstaining: making no call.

    Args:
        episode: The finished episode.

    Returns:
        True when the task was completed.
    """
    if state_match(episode) != 1.0:
        return False
    if not episode.task.reference_calls and abstention(episode) != 1.0:
        return False
    if episode.task.expected_answer is not None:
        return answer_match(episode) == 1.0
    return True


_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DATE_PATTERNS: tuple[tuple[re.Pattern[str], tuple[int, int, int]], ...] = (
    # (pattern, (group of year, group of month, group of day))
    (re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:T[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)?(?!\d)"), (1, 2, 3)),
    (re.compile(_MONTH + r"\s+" + _DAY + r",?\s+(\d{4})(?!\d)", re.IGNORECASE), (3, 1, 2)),
    (re.compile(r"(?<!\d)" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r",?\s+(\d{4})(?!\d)", re.IGNORECASE), (3, 2, 1)),
)
_QUOTED = re.compile(
    r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|\u2018([^\u2019]+)\u2019|(?<!\w)'([^']+)'(?!\w)"
)  # "...", curly double and single quotes, and '...' not inside a word (Bob's)
_ID = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*(?![\w-])")
_NUMBER = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d|,\d)|(?<![\w.])-?\d+(?:\.\d+)?")


def _normalize_text(text: str) -> str:
    """Lowercase, whitespace collapsed, punctuation stripped from around each token."""
    tokens = (tok.strip(string.punctuation + "\u201c\u201d\u2018\u2019") for tok in text.lower().split())
    return " ".join(tok for tok in tokens if tok)


def _contains_phrase(haystack: str, needle: str) -> bool:
    """``needle`` occurs in ``haystack`` on token boundaries (both already normalized)."""
    return bool(needle) and f" {needle} " in f" {haystack} "


def _month(value: str) -> int:
    return int(value) if value.isdigit() else _MONTHS[value.lower().rstrip(".")]


def _take_dates(text: str) -> tuple[set[str], str]:
    """The dates in ``text`` as ISO strings, and the text with them blanked out."""
    dates: set[str] = set()

    def keep(groups: tuple[int, int, int]) -> Callable[[re.Match[str]], str]:
        def repl(m: re.Match[str]) -> str:
            y, mo, d = (m.group(g) for g in groups)
            try:
                dates.add(_dt.date(int(y), _month(mo), int(d)).isoformat())
            except (ValueError, KeyError):
                return m.group(0)
            return " "

        return repl

    for pattern, groups in _DATE_PATTERNS:
        text = pattern.sub(keep(groups), text)
    return dates, text


def _take_ids(text: str) -> tuple[set[str], str]:
    """Identifier-like tokens (a letter first, a digit somewhere: ``ACC-1001``), lowercased."""
    ids: set[str] = set()

    def repl(m: re.Match[str]) -> str:
        if not any(ch.isdigit() for ch in m.group(0)):
            return m.group(0)
        ids.add(m.group(0).lower())
        return " "

    return ids, _ID.sub(repl, text)


def _numbers(text: str) -> list[float]:
    return [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]


@dataclass(frozen=True)
class _Values:
    """The values that matter in a text."""

    quoted: tuple[str, ...]
    dates: frozenset[str]
    ids: frozenset[str]
    numbers: tuple[float, ...]

    @property
    def empty(self) -> bool:
        return not (self.quoted or self.dates or self.ids or self.numbers)


def _values(text: str, *, quotes: bool) -> _Values:
    quoted: list[str] = []
    if quotes:
        for m in _QUOTED.finditer(text):
            inner = _normalize_text(next(g for g in m.groups() if g is not None))
            if inner:
                quoted.append(inner)
        text = _QUOTED.sub(" ", text)
    dates, text = _take_dates(text)
    ids, text = _take_ids(text)
    return _Values(tuple(quoted), frozenset(dates), frozenset(ids), tuple(_numbers(text)))


def _same_number(x: float, y: float) -> bool:
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-6)


def answer_match(episode: Episode) -> float:
    """1.0 when the final answer holds every value that matters of the task's expected answer.

    The values that matter are the expected answer's numbers (compared numerically, so
    ``"$1,250.50"`` matches ``"1250.5"``), identifiers such as ``ACC-1001`` (whole tokens,
    case-insensitive), quoted strings (as phrases, after normalization) and dates (ISO
    ``2024-03-05`` or ``March 5, 2024``, compared as dates). When the expected answer holds none
    of these, its whole normalized text (lowercase, whitespace collapsed, punctuation stripped
    around tokens) must occur in the normalized final answer.

    Args:
        episode: The finished episode.

    Returns:
        1.0 or 0.0; 0.0 when there is no final answer or the task has no expected answer.
    """
    expected = episode.task.expected_answer
    answer = episode.final_answer
    if expected is None or not answer or not answer.strip():
        return 0.0
    want = _values(expected, quotes=True)
    normalized_answer = _normalize_text(answer)
    if want.empty:
        return 1.0 if _contains_phrase(normalized_answer, _normalize_text(expected)) else 0.0
    have = _values(answer, quotes=False)
    ok = (
        all(_contains_phrase(normalized_answer, q) for q in want.quoted)
        and want.dates <= have.dates
        and want.ids <= have.ids
        and all(any(_same_number(x, y) for y in have.numbers) for x in want.numbers)
    )
    return 1.0 if ok else 0.0


# -- PROVE's process terms ----------------------------------------------------------------------


def _named(episode: Episode) -> list[CallRecord]:
    """The attempted calls that name a tool (unparsable text leaves records with no name)."""
    return [c for c in episode.calls if c.name]


def _reference_args(ref: Mapping[str, Any]) -> Mapping[str, Any]:
    args = ref.get("arguments") or {}
    return args if isinstance(args, Mapping) else {}


def _reference_names(task: Task) -> set[str]:
    return {str(ref.get("name", "")) for ref in task.reference_calls}


def validity(episode: Episode) -> float:
    """Mean well-formedness of the attempted calls.

    Each attempted call (invalid ones included) scores the mean of three checks: its name
    exists, its arguments pass the tool's schema, and it executed without error (status
    ``"ok"``). A record with no name (text that could not be parsed) scores 0.

    Args:
        episode: The finished episode.

    Returns:
        The mean over calls, in [0, 1]. With no calls: 1.0 when the task has no reference
        calls, else 0.0.
    """
    if not episode.calls:
        return 0.0 if episode.task.reference_calls else 1.0
    scores = [(c.known_name + c.valid_arguments + c.ok) / 3.0 if c.name else 0.0 for c in episode.calls]
    return sum(scores) / len(scores)


def _matches(ref: Mapping[str, Any], call: CallRecord) -> bool:
    if call.name != ref.get("name") or not isinstance(call.arguments, Mapping):
        return False
    return set(_reference_args(ref)) <= set(call.arguments)


def align_calls(episode: Episode) -> list[tuple[Mapping[str, Any], CallRecord]]:
    """Pair reference calls with the agent's successful calls, in order.

    A greedy subsequence match: each reference call, in reference (dependency) order, takes
    the first successful agent call after the previous match that has the same name and
    whose argument keys include all of the reference call's keys; a reference call with no
    such call is left unmatched.

    Args:
        episode: The finished episode.

    Returns:
        The ``(reference call, agent call)`` pairs, in order.
    """
    done = [c for c in episode.calls if c.ok]
    pairs: list[tuple[Mapping[str, Any], CallRecord]] = []
    start = 0
    for ref in episode.task.reference_calls:
        for k in range(start, len(done)):
            if _matches(ref, done[k]):
                pairs.append((ref, done[k]))
                start = k + 1
                break
    return pairs


def coverage(episode: Episode) -> float:
    """Share of the task's reference calls the agent made, in dependency order (see `align_calls`).

    Args:
        episode: The finished episode.

    Returns:
        Matched reference calls over all reference calls, in [0, 1]. A task with no reference
        calls scores 1.0 when the agent made no calls, else 0.0.
    """
    refs = episode.task.reference_calls
    if not refs:
        return 0.0 if episode.calls else 1.0
    return len(align_calls(episode)) / len(refs)


def name_precision(episode: Episode) -> float:
    """Share of the agent's named calls whose tool is among the reference calls' tools.

    Args:
        episode: The finished episode.

    Returns:
        A share in [0, 1]. With no named calls: 1.0 when the task has no reference calls,
        else 0.0.
    """
    calls = _named(episode)
    if not calls:
        return 0.0 if episode.task.reference_calls else 1.0
    names = _reference_names(episode.task)
    return sum(c.name in names for c in calls) / len(calls)


def _normalize_value(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, Mapping):
        return {k: _normalize_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalize_value(v) for v in value]
    return value


def _same_value(want: Any, got: Any) -> bool:
    """Argument values agree: strings ignore case and outer space, numbers within 1e-6."""
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(want, bool) and isinstance(got, bool) and want == got
    if isinstance(want, int | float) and isinstance(got, int | float):
        return abs(float(want) - float(got)) <= 1e-6
    if isinstance(want, Mapping) and isinstance(got, Mapping):
        return set(want) == set(got) and all(_same_value(want[k], got[k]) for k in want)
    if isinstance(want, list | tuple) and isinstance(got, list | tuple):
        return len(want) == len(got) and all(_same_value(w, g) for w, g in zip(want, got, strict=True))
    return bool(_normalize_value(want) == _normalize_value(got))


def argument_agreement(episode: Episode) -> float:
    """Share of reference argument values the agent matched, over the pairs of `align_calls`.

    Strings are compared case-insensitively after stripping, numbers with a tolerance of
    1e-6, lists and dicts element by element with the same rules.

    Args:
        episode: The finished episode.

    Returns:
        A share in [0, 1]; 1.0 when the aligned reference calls take no arguments. With no
        aligned pairs: 1.0 when the task has no reference calls and no calls were made, else 0.0.
    """
    pairs = align_calls(episode)
    if not pairs:
        return 1.0 if not episode.task.reference_calls and not episode.calls else 0.0
    total = matched = 0
    for ref, call in pairs:
        args = call.arguments if isinstance(call.arguments, Mapping) else {}
        for key, want in _reference_args(ref).items():
            total += 1
            matched += key in args and _same_value(want, args[key])
    return matched / total if total else 1.0


def abstention(episode: Episode) -> float | None:
    """Whether the agent left the tools alone on a request that needs none.

    Any attempted call counts, even one whose text could not be parsed.

    Args:
        episode: The finished episode.

    Returns:
        None (not applicable) when the task has reference calls; otherwise 1.0 when the agent
        made no calls, 0.0 when it called something.
    """
    if episode.task.reference_calls:
        return None
    return 0.0 if episode.calls else 1.0


def efficiency_budget(task: Task, b: float = 0.5) -> int:
    """PROVE's adaptive call budget ``B = n_ref + ceil(b * n_ref)``.

    ``n_ref`` is the task's ``call_budget`` when set, else the number of its reference calls;
    a task with ``n_ref == 0`` gets ``B = 1``.

    Args:
        task: The task.
        b: How much the budget grows with the task (PROVE: 0.5; 0 gives a flat budget).

    Returns:
        The budget, at least 1.
    """
    n_ref = task.call_budget if task.call_budget is not None else len(task.reference_calls)
    if n_ref <= 0:
        return 1
    return n_ref + math.ceil(b * n_ref)


def efficiency(episode: Episode, a: float = 0.5, b: float = 0.5) -> float:
    """PROVE's adaptive efficiency ``R_eff = -a * max(0, n - B) / B``: a penalty, never a bonus.

    ``n`` is the number of attempted calls that name a tool (invalid ones included) and ``B``
    is `efficiency_budget`. Only calls beyond the budget are penalised, and only on a
    successful episode (see `success`); any other episode scores 0.0, so failing is never
    cheaper than succeeding slowly.

    Args:
        episode: The finished episode.
        a: Size of the penalty per budget's worth of extra calls.
        b: Budget growth (see `efficiency_budget`).

    Returns:
        A value in ``[-a * (n - B) / B, 0]``: 0.0 within the budget.
    """
    if not success(episode):
        return 0.0
    n = len(_named(episode))
    budget = efficiency_budget(episode.task, b)
    return -a * max(0, n - budget) / budget


# -- composite rewards --------------------------------------------------------------------------


@dataclass(frozen=True)
class CompositeReward:
    """A weighted sum of the reward terms; callable as a `RewardFn`.

    ``value = validity_weight * validity + coverage_weight * coverage + name_weight *
    name_precision + arguments_weight * argument_agreement + efficiency_weight * efficiency +
    success_weight * success``. With ``normalize=True`` the sum is divided by the sum of the
    positive weights of the terms bounded by 1 (all but efficiency, whose maximum is 0), so a
    perfect episode within its budget scores exactly 1.0 and extra calls push it below.

    With ``abstain_on_irrelevant`` (the default), a task with no reference calls (an
    irrelevant request) scores the `abstention` term alone: 1.0 for no calls, 0.0 otherwise.

    Use `CompositeReward.prove` for PROVE's reward and `CompositeReward.mua_rl` for MUA-RL's.

    Attributes:
        validity_weight: Weight of `validity`.
        coverage_weight: Weight of `coverage`.
        efficiency_weight: Weight of `efficiency` (a penalty in ``[-a * (n - B) / B, 0]``).
        name_weight: Weight of `name_precision`.
        arguments_weight: Weight of `argument_agreement`.
        success_weight: Weight of `success` (0 or 1).
        efficiency_a: ``a`` of `efficiency`.
        efficiency_b: ``b`` of `efficiency`.
        normalize: Divide by the sum of the positive weights of the bounded terms.
        abstain_on_irrelevant: Score tasks without reference calls by `abstention` alone.
    """

    validity_weight: float = 0.5
    coverage_weight: float = 0.5
    efficiency_weight: float = 0.15
    name_weight: float = 0.2
    arguments_weight: float = 0.1
    success_weight: float = 0.0
    efficiency_a: float = 0.5
    efficiency_b: float = 0.5
    normalize: bool = False
    abstain_on_irrelevant: bool = True

    def __post_init__(self) -> None:
        numbers = {
            "validity_weight": self.validity_weight,
            "coverage_weight": self.coverage_weight,
            "efficiency_weight": self.efficiency_weight,
            "name_weight": self.name_weight,
            "arguments_weight": self.arguments_weight,
            "success_weight": self.success_weight,
            "efficiency_a": self.efficiency_a,
            "efficiency_b": self.efficiency_b,
        }
        for name, value in numbers.items():
            if not math.isfinite(value):
                raise ConfigError(f"CompositeReward.{name} must be finite, got {value!r}")
        if self.efficiency_a < 0 or self.efficiency_b < 0:
            raise ConfigError("CompositeReward.efficiency_a and efficiency_b must be non-negative")

    @classmethod
    def prove(cls, *, normalize: bool = True) -> CompositeReward:
        """PROVE's reward: 0.5 validity + 0.5 coverage + 0.15 efficiency + 0.2 name + 0.1 arguments.

        Efficiency uses ``a = b = 0.5``. Unnormalized, a perfect episode within budget scores
        1.3 (the efficiency term is at most 0); normalized (the default) it scores 1.0, and the
        value lies in ``[0.15 * efficiency / 1.3, 1.0]``. A task with no reference calls
        scores the abstention term.

        Args:
            normalize: Divide by 1.3 so a perfect episode scores 1.0.

        Returns:
            The composite reward.
        """
        return cls(normalize=normalize)

    @classmethod
    def mua_rl(cls) -> CompositeReward:
        """MUA-RL's binary reward: 1.0 when the task is completed (see `success`), else 0.0.

        Returns:
            The composite reward.
        """
        return cls(
            validity_weight=0.0,
            coverage_weight=0.0,
            efficiency_weight=0.0,
            name_weight=0.0,
            arguments_weight=0.0,
            success_weight=1.0,
            abstain_on_irrelevant=False,
        )

    def _weighted(self) -> Sequence[tuple[float, str, bool]]:
        """``(weight, term name, bounded by 1)`` for each weighted term."""
        return (
            (self.validity_weight, "validity", True),
            (self.coverage_weight, "coverage", True),
            (self.name_weight, "name_precision", True),
            (self.arguments_weight, "argument_agreement", True),
            (self.success_weight, "success", True),
            (self.efficiency_weight, "efficiency", False),
        )

    @property
    def scale(self) -> float:
        """What the weighted sum is divided by: 1.0, or with ``normalize`` its maximum."""
        if not self.normalize:
            return 1.0
        top = sum(w for w, _, bounded in self._weighted() if bounded and w > 0)
        return top if top > 0 else 1.0

    def _value(self, terms: Mapping[str, float], task: Task) -> float:
        if self.abstain_on_irrelevant and not task.reference_calls:
            return terms["abstention"]
        total = sum(w * terms[name] for w, name, _ in self._weighted() if w)
        return total / self.scale

    def __call__(self, episode: Episode) -> float:
        """The reward of a finished episode."""
        return self._value(self.terms(episode), episode.task)

    def terms(self, episode: Episode) -> dict[str, float]:
        """Every reward term of a finished episode, for ``info["reward_terms"]``.

        Args:
            episode: The finished episode.

        Returns:
            ``success`` (0 or 1), ``state_match``, ``answer_match`` (only when the task has an
            expected answer), ``validity``, ``coverage``, ``name_precision``,
            ``argument_agreement``, ``abstention`` (only for tasks without reference calls),
            ``efficiency``, ``n_calls`` (attempted calls naming a tool) and ``budget`` (B).
        """
        out: dict[str, float] = {
            "success": 1.0 if success(episode) else 0.0,
            "state_match": state_match(episode),
        }
        if episode.task.expected_answer is not None:
            out["answer_match"] = answer_match(episode)
        out["validity"] = validity(episode)
        out["coverage"] = coverage(episode)
        out["name_precision"] = name_precision(episode)
        out["argument_agreement"] = argument_agreement(episode)
        abstained = abstention(episode)
        if abstained is not None:
            out["abstention"] = abstained
        out["efficiency"] = efficiency(episode, self.efficiency_a, self.efficiency_b)
        out["n_calls"] = float(len(_named(episode)))
        out["budget"] = float(efficiency_budget(episode.task, self.efficiency_b))
        return out


def all_terms(episode: Episode) -> dict[str, float]:
    """Every reward term of PROVE's composite (`CompositeReward.prove`), for any reward function.

    Args:
        episode: The finished episode.

    Returns:
        See `CompositeReward.terms`.
    """
    return CompositeReward.prove().terms(episode)
