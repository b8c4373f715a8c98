"""Dialogue tasks against the scripted user, on every bundled server: the acceptance figures.

For each bundled server: synthesize N dialogue tasks (default 200, `SynthConfig.dialogue`),
then play every dialogue task three ways through ``MCPEnv(..., user="scripted")``:

- the reference dialogue (must score 1.0 on every dialogue task);
- an agent that never asks: the reference calls with their right values, then "All done."
  (must score 0 on every missing-value task: a value it did not ask for is a guess);
- an agent that skips confirmations: the reference dialogue without its "Shall I go ahead?"
  messages (must score 0 on every task with an action to confirm).

With ``--llm-url`` (an OpenAI-compatible endpoint, e.g. ``gym-mcp serve-model``) it also plays
the reference dialogue of the first ``--llm-tasks`` dialogue tasks of each server against an LLM
user and reports how often it completed and which guards fired.

Run: .venv/bin/python benchmarks/bench_dialogue.py [--n 200] [--quick] [--llm-url URL]
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import base_parser, table, write_result

from gym_mcp import MCPEnv
from gym_mcp.playback import play
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.tasks import DIALOGUE_KINDS
from gym_mcp.users import LLMUser

SERVERS = ("banking", "shopping", "calendar")
ASK_TO_CONFIRM = "Shall I go ahead?"


def main() -> int:
    parser = base_parser(__doc__ or "", repeats=1, quick_repeats=1)
    parser.add_argument("--n", type=int, default=200, help="tasks per server (default 200; 40 with --quick)")
    parser.add_argument("--llm-url", default=None, help="an OpenAI-compatible endpoint to play the user")
    parser.add_argument("--llm-model", default="default")
    parser.add_argument("--llm-tasks", type=int, default=10, help="dialogue tasks per server for the LLM user")
    args = parser.parse_args()
    n = 40 if args.quick else args.n
    rows, result = [], {}
    for server in SERVERS:
        t0 = time.perf_counter()
        tasks = synthesize(server, SynthConfig.dialogue(n=n)).tasks
        synth_s = time.perf_counter() - t0
        kinds = Counter(t.variant for t in tasks)
        env = MCPEnv(server, user="scripted", max_steps=60)
        ref_ok = never_ask_zero = skip_zero = 0
        n_missing = n_confirm = 0
        t0 = time.perf_counter()
        for task in tasks:
            if task.variant not in DIALOGUE_KINDS:
                continue
            ref_ok += play(env, task, task.reference_dialogue()).info["reward_terms"]["success"] == 1.0
            if task.variant == "missing_param":
                n_missing += 1
                info = play(env, task, [*map(dict, task.reference_calls), "All done."]).info
                never_ask_zero += info["reward_terms"]["success"] == 0.0
            if task.user is not None and task.user.confirm:
                n_confirm += 1
                skipped = [a for a in task.reference_dialogue() if not (isinstance(a, str) and ASK_TO_CONFIRM in a)]
                info = play(env, task, skipped).info
                skip_zero += info["reward_terms"]["success"] == 0.0
        play_s = time.perf_counter() - t0
        env.close()
        n_dialogue = sum(kinds[k] for k in DIALOGUE_KINDS)
        entry: dict[str, Any] = {
            "tasks": len(tasks),
            "by_variant": dict(sorted(kinds.items())),
            "dialogue_tasks": n_dialogue,
            "reference_dialogue_scores_1": ref_ok,
            "missing_value_tasks": n_missing,
            "never_ask_scores_0": never_ask_zero,
            "tasks_with_a_confirmation": n_confirm,
            "skip_confirmation_scores_0": skip_zero,
            "seconds": {"synthesis": round(synth_s, 1), "episodes": round(play_s, 1)},
        }
        if args.llm_url:
            user = LLMUser(args.llm_url, args.llm_model, max_tokens=48)
            llm_env = MCPEnv(server, user=user, max_steps=60, max_user_turns=12)
            guards: Counter[str] = Counter()
            done = 0
            sample = [t for t in tasks if t.variant in DIALOGUE_KINDS][: args.llm_tasks]
            t0 = time.perf_counter()
            for task in sample:
                info = play(llm_env, task, task.reference_dialogue()).info
                done += info.get("reward_terms", {}).get("success") == 1.0
                guards.update(info["user"]["guards"])
            entry["llm_user"] = {
                "episodes": len(sample),
                "completed": done,
                "guards": dict(guards),
                "seconds": round(time.perf_counter() - t0, 1),
            }
            llm_env.close()
            user.close()
        result[server] = entry
        rows.append(
            [
                server,
                f"{n_dialogue}/{len(tasks)}",
                f"{ref_ok}/{n_dialogue}",
                f"{never_ask_zero}/{n_missing}",
                f"{skip_zero}/{n_confirm}",
                f"{synth_s:.0f} s + {play_s:.0f} s",
            ]
        )
        print(f"{server}: {entry}", file=sys.stderr, flush=True)
    print(
        table(
            ["server", "dialogue tasks", "reference = 1.0", "never asks = 0", "skips confirm = 0", "time"],
            rows,
            title=f"Dialogue tasks against the scripted user ({n} synthesized tasks per server)",
        )
    )
    path = write_result(args.out, "bench_dialogue", {"n": n, "servers": result})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
