"""The transition family: tools that misbehave at run time.

Each perturbation here acts on one call at a time, with a configured probability. Failures
are injected *before* the call (it is not sent, so nothing was done and a retry is safe) and
say `TRANSIENT_MARKER`; everything else rewrites the result the agent reads after the server
did its work (truncated or malformed text, lists paged or reordered, a stale read, renamed
fields). "When Simulation Lies" measures a ~30% accuracy drop for this family.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.wrappers.perturbation import TRANSIENT_MARKER, EpisodeContext, Perturbation, as_json

__all__ = [
    "Latency",
    "MalformedResults",
    "PaginatedLists",
    "ReorderedLists",
    "SchemaDrift",
    "StaleReads",
    "Timeouts",
    "TransientErrors",
    "TruncatedResults",
]


def _probability(owner: str, p: float) -> float:
    if not 0.0 <= p <= 1.0:
        raise ConfigError(f"{owner}: p must be between 0 and 1, got {p!r}")
    return p


def _key(tool: str, arguments: Any) -> str:
    return tool + json.dumps(arguments, sort_keys=True, default=str)


class _Failures(Perturbation):
    """Failures injected before the call, at most ``max_in_a_row`` in a row per tool."""

    messages: tuple[str, ...] = ()

    def __init__(self, p: float, max_in_a_row: int) -> None:
        self.p = _probability(type(self).__name__, p)
        if max_in_a_row < 1:
            raise ConfigError(f"{type(self).__name__}: max_in_a_row must be at least 1, got {max_in_a_row!r}")
        self.max_in_a_row = max_in_a_row
        self._streak: Counter[str] = Counter()

    def start(self, episode: EpisodeContext) -> None:
        """Start every tool's streak at zero."""
        self._streak.clear()

    def before(self, tool: str, arguments: Any, episode: EpisodeContext) -> str | None:
        """A failure with probability ``p`` (never more than ``max_in_a_row`` of one tool in a row)."""
        roll, pick = episode.rng.random(), episode.rng.randrange(len(self.messages))
        if roll >= self.p or self._streak[tool] >= self.max_in_a_row:
            self._streak[tool] = 0
            return None
        self._streak[tool] += 1
        text = self.messages[pick].format(marker=TRANSIENT_MARKER)
        episode.note(self, tool, text)
        return text


class TransientErrors(_Failures):
    """Rate limits and 5xx-like errors that go away on retry (the call is not sent).

    Args:
        p: Probability that a call fails transiently.
        max_in_a_row: Most transient failures of one tool in a row.
    """

    kind = "transient_error"
    messages = (
        "Error: 503 Service Unavailable {marker}: the server is overloaded; nothing was done. Retry the same call.",
        "Error: 429 Too Many Requests {marker}: rate limit reached; nothing was done. Retry the same call.",
        "Error: 502 Bad Gateway {marker}: the upstream service did not answer; nothing was done. Retry the same call.",
    )

    def __init__(self, p: float = 0.3, max_in_a_row: int = 2) -> None:
        super().__init__(p, max_in_a_row)


class Timeouts(_Failures):
    """Calls that time out before the server answers (the call is not sent; a retry succeeds).

    Args:
        p: Probability that a call times out.
        max_in_a_row: Most timeouts of one tool in a row.
    """

    kind = "timeout"
    messages = (
        "Error: the request timed out after 30 s {marker}; no result came back and nothing was done. Retry the call.",
        "Error: gateway timeout {marker}: the tool did not answer in time; nothing was done. Retry the call.",
    )

    def __init__(self, p: float = 0.2, max_in_a_row: int = 1) -> None:
        super().__init__(p, max_in_a_row)


class _Rewrite(Perturbation):
    """Rewrites a successful JSON result with probability ``p``."""

    reads_only = False  # rewrite only the results of tools that only read

    def __init__(self, p: float) -> None:
        self.p = _probability(type(self).__name__, p)

    def after(self, tool: str, arguments: Any, output: str, episode: EpisodeContext) -> str:
        """The rewritten result (errors and non-JSON text pass unchanged)."""
        data = as_json(output)
        if data is None or (self.reads_only and tool not in episode.read_only):
            return output
        if episode.rng.random() >= self.p:
            return output
        changed = self.rewrite(tool, arguments, output, data, episode)
        if changed != output:
            episode.note(self, tool, changed if len(changed) <= 200 else changed[:200] + "...")
        return changed

    def rewrite(self, tool: str, arguments: Any, output: str, data: Any, episode: EpisodeContext) -> str:
        """The new text for ``output`` (``data`` is it parsed)."""
        raise NotImplementedError


class TruncatedResults(_Rewrite):
    """Results cut part-way, as a proxy or a size limit cuts them.

    Args:
        p: Probability that a successful JSON result is cut.
        keep: Share of the text kept (at least 20 characters).
    """

    kind = "truncated_result"

    def __init__(self, p: float = 0.2, keep: float = 0.5) -> None:
        super().__init__(p)
        if not 0.0 < keep < 1.0:
            raise ConfigError(f"TruncatedResults: keep must be between 0 and 1, got {keep!r}")
        self.keep = keep

    def rewrite(self, tool: str, arguments: Any, output: str, data: Any, episode: EpisodeContext) -> str:
        """The first ``keep`` of the text, marked as cut."""
        cut = max(20, int(len(output) * self.keep))
        return output if cut >= len(output) else output[:cut] + " ...[truncated]"


class MalformedResults(_Rewrite):
    """Results that are no longer valid JSON (single quotes, a stray bracket), the values intact.

    Args:
        p: Probability that a successful JSON result is malformed.
    """

    kind = "malformed_result"

    def __init__(self, p: float = 0.2) -> None:
        super().__init__(p)

    def rewrite(self, tool: str, arguments: Any, output: str, data: Any, episode: EpisodeContext) -> str:
        """Python-like quoting and a dangling bracket."""
        return output.replace('"', "'") + ("}" if output.startswith("{") else "]")


class ReorderedLists(_Rewrite):
    """Lists in results come back in another order (as an unordered API returns them).

    Args:
        p: Probability that a result's lists are shuffled.
    """

    kind = "reordered_list"

    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)

    def rewrite(self, tool: str, arguments: Any, output: str, data: Any, episode: EpisodeContext) -> str:
        """The result with every list of two or more items shuffled."""
        shuffled = self._shuffle(data, episode)
        return output if shuffled == data else json.dumps(shuffled, ensure_ascii=False)

    def _shuffle(self, obj: Any, episode: EpisodeContext) -> Any:
        if isinstance(obj, dict):
            return {k: self._shuffle(v, episode) for k, v in obj.items()}
        if isinstance(obj, list):
            items = [self._shuffle(v, episode) for v in obj]
            if len(items) > 1:
                episode.rng.shuffle(items)
            return items
        return obj


class PaginatedLists(Perturbation):
    """Long lists come back a page at a time; the same call again gives the next page.

    Only the results of tools that only read are paged (a repeated read is safe). The page the
    agent is shown says which page it is and how to get the next.

    Args:
        page_size: Items per page.
    """

    kind = "paginated_list"

    def __init__(self, page_size: int = 3) -> None:
        if page_size < 1:
            raise ConfigError(f"PaginatedLists: page_size must be at least 1, got {page_size!r}")
        self.page_size = page_size
        self._seen: Counter[str] = Counter()

    def start(self, episode: EpisodeContext) -> None:
        """Every call starts at page 1 again."""
        self._seen.clear()

    def after(self, tool: str, arguments: Any, output: str, episode: EpisodeContext) -> str:
        """One page of the longest list in the result."""
        data = as_json(output)
        if tool not in episode.read_only or data is None:
            return output
        if isinstance(data, list):
            items, wrap = data, lambda page, note: {"items": page, "page": note}
        elif isinstance(data, dict):
            lists = [k for k, v in data.items() if isinstance(v, list)]
            if not lists:
                return output
            field = max(lists, key=lambda k: len(data[k]))
            items, wrap = data[field], lambda page, note: {**data, field: page, "page": note}
        else:
            return output
        if len(items) <= self.page_size:
            return output
        pages = -(-len(items) // self.page_size)
        key = _key(tool, arguments)
        index = self._seen[key] % pages
        self._seen[key] += 1
        page = items[index * self.page_size : (index + 1) * self.page_size]
        note = f"{index + 1} of {pages} ({len(items)} items); call again with the same arguments for the next page"
        changed = json.dumps(wrap(page, note), ensure_ascii=False)
        episode.note(self, tool, f"page {index + 1} of {pages}")
        return changed


class StaleReads(Perturbation):
    """A read that repeats an earlier one may return the earlier, now stale, result.

    As a cache or a lagging replica does: after a write, reading the same thing again can show
    the state from before it.

    Args:
        p: Probability that a changed repeated read is served stale.
    """

    kind = "stale_read"

    def __init__(self, p: float = 0.5) -> None:
        self.p = _probability("StaleReads", p)
        self._cache: dict[str, str] = {}

    def start(self, episode: EpisodeContext) -> None:
        """Nothing is cached at the start of an episode."""
        self._cache.clear()

    def after(self, tool: str, arguments: Any, output: str, episode: EpisodeContext) -> str:
        """The earlier result of the same read, with probability ``p``, when it has changed since."""
        if tool not in episode.read_only:  # a write's result; errors never reach `after`
            return output
        key = _key(tool, arguments)
        earlier = self._cache.get(key)
        if earlier is not None and earlier != output and episode.rng.random() < self.p:
            episode.note(self, tool, "served the result of an earlier identical read")
            return earlier
        self._cache[key] = output
        return output


_SYNONYMS = {
    "status": "state",
    "amount": "value",
    "balance": "current_balance",
    "email": "email_address",
    "total": "total_amount",
    "price": "unit_price",
    "quantity": "qty",
    "name": "display_name",
    "description": "details",
    "type": "kind",
    "date": "on_date",
    "title": "heading",
    "phone": "phone_number",
    "notes": "remarks",
}


def _drifted(key: str) -> str | None:
    if key in _SYNONYMS:
        return _SYNONYMS[key]
    if "_" in key.strip("_"):
        head, *rest = key.split("_")
        return head + "".join(part[:1].upper() + part[1:] for part in rest)
    return None


class SchemaDrift(Perturbation):
    """Fields of results renamed, as a new API version renames them (``account_id`` -> ``accountId``).

    Each field name drifts with probability ``p`` the first time the episode meets it and keeps
    its new name for the rest of the episode.

    Args:
        p: Probability that a field name drifts.
    """

    kind = "schema_drift"

    def __init__(self, p: float = 0.3) -> None:
        self.p = _probability("SchemaDrift", p)
        self._names: dict[str, str] = {}

    def start(self, episode: EpisodeContext) -> None:
        """A new episode draws new drifts."""
        self._names.clear()

    def after(self, tool: str, arguments: Any, output: str, episode: EpisodeContext) -> str:
        """The result with the drifted field names."""
        data = as_json(output)
        if data is None:
            return output
        renamed: list[str] = []
        changed = self._rename(data, episode, renamed)
        if not renamed:
            return output
        episode.note(self, tool, ", ".join(sorted(set(renamed))))
        return json.dumps(changed, ensure_ascii=False)

    def _rename(self, obj: Any, episode: EpisodeContext, renamed: list[str]) -> Any:
        if isinstance(obj, list):
            return [self._rename(v, episode, renamed) for v in obj]
        if not isinstance(obj, dict):
            return obj
        out: dict[str, Any] = {}
        for key, value in obj.items():
            if key not in self._names:
                new = _drifted(key)
                self._names[key] = new if new is not None and new not in obj and episode.rng.random() < self.p else key
            name = self._names[key]
            if name != key:
                renamed.append(f"{key} -> {name}")
            out[name] = self._rename(value, episode, renamed)
        return out


class Latency(Perturbation):
    """Calls that take longer: the step really waits (the agent's text is unchanged).

    Args:
        p: Probability that a call is slowed.
        seconds: The added wait, drawn uniformly from ``(low, high)``.
    """

    kind = "latency"

    def __init__(self, p: float = 0.2, seconds: tuple[float, float] = (0.05, 0.2)) -> None:
        self.p = _probability("Latency", p)
        low, high = seconds
        if not 0.0 <= low <= high:
            raise ConfigError(f"Latency: seconds must be (low, high) with 0 <= low <= high, got {seconds!r}")
        self.seconds = (float(low), float(high))

    def after(self, tool: str, arguments: Any, output: str, episode: EpisodeContext) -> str:
        """Wait a while, with probability ``p``."""
        if episode.rng.random() < self.p:
            wait = episode.rng.uniform(*self.seconds)
            time.sleep(wait)
            episode.note(self, tool, f"{wait:.3f} s added")
        return output
