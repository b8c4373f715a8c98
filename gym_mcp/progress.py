"""Progress of long work (synthesis, evaluation, training), readable in a terminal and in a log.

On a terminal, a `tqdm` bar redraws in place; when the stream is not a terminal (a log file, CI,
a pipe), one plain line is written at every tenth of the work instead, so a log gets a few
lines rather than a flood of carriage returns. Synthesis (``gym-mcp synth``), evaluation
(``gym-mcp eval``) and training (``gym-mcp train``: its own evaluations and the steps) all show
their progress through this module; nothing else in the package draws a bar.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from tqdm import tqdm

__all__ = ["Progress", "progress_bar"]


class Progress:
    """Progress of ``total`` units of work.

    Args:
        total: Units in all.
        desc: What is being done (``"synthesizing"``).
        unit: What a unit is (``"tasks"``).
        stream: Where it is shown (default stderr).
    """

    def __init__(self, total: int, desc: str, unit: str, stream: TextIO | None = None) -> None:
        self.total = max(1, total)
        self.desc = desc
        self.unit = unit
        self.stream = stream or sys.stderr
        self.done = 0
        self._start = time.perf_counter()
        self._next_line = 0
        isatty = getattr(self.stream, "isatty", None)
        self._bar: Any = None
        if callable(isatty) and isatty():
            self._bar = tqdm(
                total=self.total, desc=desc, unit=f" {unit}", file=self.stream, leave=True, dynamic_ncols=True
            )

    def update(self, done: int, **status: Any) -> None:
        """Record that ``done`` units are finished; ``status`` values are shown beside the count."""
        done = min(done, self.total)
        shown = ", ".join(f"{k} {v}" for k, v in status.items())
        if self._bar is not None:
            self._bar.update(done - self.done)
            if shown:
                self._bar.set_postfix_str(shown, refresh=False)
            self.done = done
            if done >= self.total:
                self.close()
            return
        self.done = done
        if done < self._next_line and done < self.total:
            return
        self._next_line = done + max(1, self.total // 10)
        elapsed = time.perf_counter() - self._start
        # a rate over less than a second is noise (the first unit may finish within microseconds)
        timing = f"{done / elapsed * 60:.0f}/min, {elapsed:.0f}s" if elapsed >= 1 else f"{elapsed:.1f}s"
        line = f"{self.desc}: {done}/{self.total} {self.unit} ({timing})"
        self.stream.write(line + (f"; {shown}" if shown else "") + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Finish the display."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def progress_bar(desc: str, unit: str, stream: TextIO | None = None) -> Callable[[int, int], None]:
    """A ``(done, total)`` callback that shows a `Progress` (the shape synthesis and evaluation call)."""
    state: dict[str, Progress] = {}

    def show(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None or bar.total != max(1, total):
            bar = state["bar"] = Progress(total, desc, unit, stream)
        bar.update(done)

    return show
