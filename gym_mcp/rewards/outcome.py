"""Outcome rewards: what the episode achieved.

The final state (`state_match`), the final answer (`answer_match`), `success`, which needs
both, and `abstention` (a request that needs no tool is met by calling none).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from gym_mcp.episode import Episode
from gym_mcp.rewards.dialogue import dialogue_ok

__all__ = ["abstention", "answer_match", "completion", "state_match", "success"]


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
    A dialogue (an episode with a simulated user) also needs every withheld value asked for before it was
    used and every irreversible action confirmed (`gym_mcp.rewards.dialogue`).

    Args:
        episode: The finished episode.

    Returns:
        True when the task was completed.
    """
    if state_match(episode) != 1.0:
        return False
    if not episode.task.reference_calls and abstention(episode) != 1.0:
        return False
    if episode.with_user and not dialogue_ok(episode):
        return False
    if episode.task.expected_answer is not None:
        return answer_match(episode) == 1.0
    return True


def completion(episode: Episode) -> float:
    """`success` as a reward: 1.0 when the task was completed, else 0.0 (the default with a user)."""
    return 1.0 if success(episode) else 0.0


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
