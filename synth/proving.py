"""Proving a synthesized task: its reference calls replay to the state its own run reached.

A task is kept only when a replay from a fresh reset reproduces it. On a server that mints
values (a new note's random id, a timestamp) a single replay is not proof: the task is replayed
twice from fresh copies of its initial state, with every argument an earlier output held carried
at run time (`gym_mcp.tasks.flows`), and where the two final states differ the differing parts
are found and either marked volatile or the task refused (`SynthConfig.nondeterministic`).
A deterministic server pays one replay a task, as before.

Two replays a moment apart agree on a timestamp of whole seconds. So where a task's final state
holds a clock reading its initial state did not (today's date, or a Unix time of this hour), the
task is replayed twice more across a second boundary (`Prover.clock_probe`) and the parts that
differ are judged as above; a probe per write tool at most, and a server whose states hold no
clock reading pays nothing. Waiting for the boundary is most of a small synthesis's time (banking,
30 tasks: 7.7 of 11 s asleep), so `synthesize` defers the probes: the second replay runs once the
second has passed anyway, while later tasks are made (`Prover.settle`). A probe can only keep its
task (judged) or reject it, and a task kept ahead of its probe changes nothing the synthesis draws
next; a probe that rejects its task raises `ProbeRejected` and the synthesis runs again probing
in place. So on a server whose states hold no clock reading finer than a day (banking's dates),
deferred probes give the very tasks probing in place gives. On one that stamps seconds, which
tasks survive depends on when the calls ran (a chain's own run and its replay may fall in
different seconds) with probes deferred or not.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from gym_mcp.env import MCPEnv
from gym_mcp.playback import replay
from gym_mcp.synth.chain import Chain
from gym_mcp.synth.values import decode
from gym_mcp.tasks import Task
from gym_mcp.tasks.flows import dig, paths

__all__ = ["ProbeRejected", "Prover", "candidate_flows"]


class ProbeRejected(Exception):
    """A deferred clock probe rejected a task that was kept ahead of it: the run must probe in place."""


class Prover:
    """Replays synthesized tasks and keeps those their replays reproduce.

    Attributes:
        volatile: The parts two replays found minted, by state group (``{"notes": {"id"}}``).
        marked: Tasks kept with volatile parts left out of their fingerprint.
        refused: Tasks refused because their replays differed (``nondeterministic="refuse"``).
    """

    def __init__(
        self,
        env: MCPEnv,
        *,
        nondeterministic: Literal["volatile", "refuse"],
        rejects: Counter[str],
        initial_fingerprint: Callable[[], str],
        dialogue_completes: Callable[[Task], bool],
        defer_clock_probes: bool = False,
    ) -> None:
        """Prove tasks on ``env``.

        Args:
            env: The environment every replay runs in (the synthesizer's own).
            nondeterministic: What replays that differ make of a task: mark the parts volatile
                or refuse it.
            rejects: The synthesizer's rejection counter, by reason; a dropped task counts here.
            initial_fingerprint: The initial state's fingerprint (an irrelevant task must keep it).
            dialogue_completes: Whether a task's reference dialogue completes it (tasks with a user).
            defer_clock_probes: Keep a task ahead of its clock probe and finish the probe once the
                second has passed (`settle`), instead of sleeping to the boundary in `finish`;
                a deferred probe that rejects its task raises `ProbeRejected`.
        """
        self.env = env
        self.nondeterministic = nondeterministic
        self.rejects = rejects
        self.fp0 = initial_fingerprint
        self.dialogue_completes = dialogue_completes
        self.volatile: dict[str, set[str]] = {}
        self.marked = 0
        self.refused = 0
        self.probed: set[str] = set()  # tools a clock probe has covered
        self._seed_clock: dict[str, int] = {}  # clock readings in each initial state
        self.defer = defer_clock_probes
        # deferred probes: the task, its first replay's final state, and when its second may run
        self._pending: list[tuple[Task, Any, float]] = []

    def finish(self, tasks: list[Task], chains: Sequence[Chain] = ()) -> list[Task]:
        """Replay each task's reference calls from a fresh reset; keep its final fingerprint.

        A replay that reaches the state the chain's own run reached proves the task (the common
        case: one replay, as before). One that does not, or fails, is proved twice over
        (`prove`): a server that mints values shows itself there.
        """
        self.settle(wait=False)
        out = []
        for i, task in enumerate(tasks):
            result = replay(self.env, task)
            chain = chains[i] if i < len(chains) else None
            if chain is not None and not (result.ok and result.fingerprint == chain.fingerprint):
                proved = self.prove(task, chain)
                if proved is None:
                    continue
                task, fp = proved
            elif not result.ok:
                self.rejects["replay failed"] += 1
                continue
            else:
                fp = result.fingerprint
            if task.variant == "irrelevant" and fp != self.fp0():
                self.rejects["replay mismatch"] += 1
                continue
            if fp != self.fp0() and self._mints_clock(task) and self._probe(task) is None:
                continue
            task = _replace(task, expected_fingerprint=fp)
            if task.user is not None and not self.dialogue_completes(task):
                self.rejects["reference dialogue failed"] += 1
                continue
            out.append(task)
        return out

    def prove(self, task: Task, chain: Chain) -> tuple[Task, str] | None:
        """Replay a task twice from fresh copies of its initial state, minted values carried.

        Its first replay did not reach the chain's state: either a later call takes a value an
        earlier call minted (a new note's random id), or the state holds minted values (ids,
        timestamps), or both. The calls are replayed with every argument that an earlier output
        held carried from this run's output (`gym_mcp.tasks.flows`), twice; the flows whose value
        changed are kept in the task. When the two final states differ, the parts they differ in
        are found (`StateBackend.reconcile`) and, as `SynthConfig.nondeterministic` says, judged
        as volatile or the task is refused.

        Returns:
            The task (with its flows and volatile parts) and its expected fingerprint, or None
            when it is rejected (the reason counted).
        """
        flows = candidate_flows(chain)
        trial = _replace(task, metadata={**task.metadata, "flows": flows}) if flows else task
        first = replay(self.env, trial)
        if not first.ok:
            self.rejects["replay failed"] += 1
            return None
        snap1 = self.env.state.snapshot()
        outputs = [decode(c.output) for c in self.env.episode().calls]
        needed = [
            f
            for f in flows
            if dig(outputs[f["source"]], f["field"]) != chain.calls[f["target"]]["arguments"][f["param"]]
        ]
        named = [f for f in needed if f["param"] not in chain.call_refs[f["target"]]]
        if named:  # the request spells out a value the server mints anew each time: a stale request
            self.rejects["the request names a value the server mints"] += 1
            return None
        second = replay(self.env, trial)
        if not second.ok:
            self.rejects["replay failed"] += 1
            return None
        fields, fp = self.env.state.reconcile(snap1, self.env.state.snapshot())
        meta = {k: v for k, v in task.metadata.items() if k != "flows"}
        if needed:
            meta["flows"] = needed
        if not fields:
            return _replace(task, metadata=meta), first.fingerprint
        if not self._judge(fields, fp) or fp is None:  # (a None fp is refused by _judge)
            return None
        meta["volatile"] = {g: list(f) for g, f in sorted(fields.items())}
        return _replace(task, metadata=meta), fp

    def _mints_clock(self, task: Task) -> bool:
        """Whether the last replay's state holds more clock readings than the task's initial state.

        Only for a task that calls a tool no probe has covered yet.
        """
        tools = {c["name"] for c in task.reference_calls}
        if tools <= self.probed:
            return False
        final = _clock_readings(self.env.state.snapshot().data)
        if not final:
            return False
        key = repr(sorted(task.initial_state.items()))
        if key not in self._seed_clock:
            self.env.reset(options={"task": task})
            self._seed_clock[key] = _clock_readings(self.env.state.snapshot().data)
        return final > self._seed_clock[key]

    def clock_probe(self, task: Task) -> bool | None:
        """Replay a task twice across a second boundary; what differs is a clock reading.

        The parts found join `volatile` (``nondeterministic="volatile"``; every task is then
        judged without them, `with_volatile`), or the task is refused (``"refuse"``).

        Returns:
            True when parts were found, False when the two replays agreed, None when the task is
            rejected (the reason counted).
        """
        first = self._probe_first(task)
        if first is None:
            return None
        snap1, after = first
        time.sleep(max(0.0, after - time.time()))
        return self._probe_second(task, snap1)

    def _probe(self, task: Task) -> bool | None:
        """`clock_probe`, or with ``defer`` its first replay only (True: the task stays for now)."""
        if not self.defer:
            return self.clock_probe(task)
        first = self._probe_first(task)
        if first is None:
            return None
        self._pending.append((task, *first))
        return True

    def _probe_first(self, task: Task) -> tuple[Any, float] | None:
        """A probe's first replay: its final state and when the second may run (None: rejected)."""
        self.probed.update(c["name"] for c in task.reference_calls)
        first = replay(self.env, task)
        if not first.ok:
            self.rejects["replay failed"] += 1
            return None
        return self.env.state.snapshot(), int(time.time()) + 1.05  # the next whole second, and a little more

    def _probe_second(self, task: Task, snap1: Any) -> bool | None:
        """A probe's second replay, past the second its first ended in: True, False or None as `clock_probe`."""
        second = replay(self.env, task)
        if not second.ok:
            self.rejects["replay failed"] += 1
            return None
        fields, fp = self.env.state.reconcile(snap1, self.env.state.snapshot())
        if not fields:
            return False
        return True if self._judge(fields, fp) else None

    def settle(self, *, wait: bool = True) -> None:
        """Finish the deferred clock probes whose second has passed (with ``wait``, every one).

        With ``wait``, sleeps once, past the second of the last first replay, if that has not
        passed yet; call it before `with_volatile`.

        Raises:
            ProbeRejected: A probe rejected its task (which was kept ahead of it).
        """
        if wait and self._pending:
            time.sleep(max(0.0, max(after for *_, after in self._pending) - time.time()))
        now = time.time()
        ready = [p for p in self._pending if p[2] <= now]
        self._pending = [p for p in self._pending if p[2] > now]
        for task, snap1, _ in ready:
            if self._probe_second(task, snap1) is None:
                raise ProbeRejected(f"{task.id}: its clock probe rejected it after it was kept")

    def _judge(self, fields: Mapping[str, Sequence[str]], fp: str | None) -> bool:
        """Parts two replays differ in: marked volatile (True), or the task refused with the reason (False)."""
        where = _where(fields)
        if fp is None:
            self.rejects[f"replays differ where nothing can be left out ({where})"] += 1
            return False
        if self.nondeterministic == "refuse":
            self.rejects[f"replays differ ({where})"] += 1
            self.refused += 1
            return False
        for group, names in fields.items():
            self.volatile.setdefault(group, set()).update(names)
        self.marked += 1
        return True

    def with_volatile(self, tasks: list[Task]) -> list[Task]:
        """Every task judged with every part found minted: replayed once more, fingerprinted without them.

        A task kept before the parts were found (a timestamp that happened to fall in the same
        second as its chain's run) would otherwise be judged on them. Runs only on a server where
        two replays differed, so a deterministic server pays nothing.
        """
        volatile = {g: sorted(f) for g, f in sorted(self.volatile.items())}
        out = []
        for task in tasks:
            result = replay(self.env, task)
            if not result.ok:  # it replayed before: a server that fails now is refused, not judged
                self.rejects["replay failed"] += 1
                continue
            fp = self.env.state.fingerprint_without(volatile)
            out.append(_replace(task, expected_fingerprint=fp, metadata={**task.metadata, "volatile": volatile}))
        return out


def candidate_flows(chain: Chain) -> list[dict[str, Any]]:
    """Arguments that an earlier call's output held, as flows (the latest output, first path).

    Only strings of four characters or more: a minted id or token, not a count or a flag that
    any output might hold by chance.
    """
    outputs = [decode(text) for text in chain.outputs]
    flows = []
    for target, call in enumerate(chain.calls):
        for param, value in call["arguments"].items():
            if not isinstance(value, str) or len(value) < 4:
                continue
            for source in range(target - 1, -1, -1):
                field = next((path for path, leaf in paths(outputs[source]) if leaf == value), None)
                if field is not None:
                    flows.append({"source": source, "field": field, "target": target, "param": param})
                    break
    return flows


def _where(fields: Mapping[str, Sequence[str]]) -> str:
    """``notes: created_at, id; tags: note_id``."""
    return "; ".join(f"{group}: {', '.join(names) or '(whole group)'}" for group, names in sorted(fields.items()))


def _replace(task: Task, **changes: Any) -> Task:
    return Task.from_dict({**task.to_dict(), **changes})


def _clock_readings(data: bytes) -> int:
    """How many readings of the clock a state's bytes hold.

    Today's date (UTC or local, ISO order), or a Unix time in seconds or milliseconds within about
    three hours of now.
    """
    now = time.time()
    days = {datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d"), datetime.fromtimestamp(now).strftime("%Y-%m-%d")}
    pattern = b"|".join(
        [
            *(re.escape(d.encode()) for d in sorted(days)),
            rb"(?<!\d)" + str(int(now))[:6].encode() + rb"\d{4}(?:\d{3})?(?!\d)",
        ]
    )
    return len(re.findall(pattern, data))
