#!/usr/bin/env bash
# verifiers' OpenEnv taskset drives a gym-mcp server that runs in another venv.
#
#   benchmarks/verifiers/run.sh [N]        # N banking episodes (default 10)
#
# Environment (all optional):
#   VERIFIERS_VENV  venv with verifiers[openenv]==0.4.0 (default: .venv-verifiers in the repo)
#   GYM_MCP_VENV    venv with gym-mcp[openenv]           (default: .venv in the repo)
#   ENV_NAME        the gym-mcp environment to serve    (default: banking)
#   CONCURRENCY     episodes in flight (vf-eval max_concurrent, server --max-sessions; default 4)
#   OUT_DIR         where tasks, logs, eval.toml and traces go (default: a fresh temp dir)
#
# It synthesizes N tasks, serves them with `gym-mcp serve-openenv` (gym-mcp's venv), starts the
# reference endpoint (reference_llm.py), runs `vf-eval` (verifiers' venv) on one reset per task,
# and reads `openenv_reward` from the traces. Exit status 1 unless every episode scored 1.0.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
N="${1:-${N:-10}}"
VERIFIERS_VENV="${VERIFIERS_VENV:-$ROOT/.venv-verifiers}"
GYM_MCP_VENV="${GYM_MCP_VENV:-$ROOT/.venv}"
ENV_NAME="${ENV_NAME:-banking}"
CONCURRENCY="${CONCURRENCY:-4}"
OUT_DIR="${OUT_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/gym-mcp-verifiers.XXXXXX")}"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"

if [[ ! -x "$VERIFIERS_VENV/bin/vf-eval" ]]; then
    echo "no vf-eval in $VERIFIERS_VENV; make the verifiers venv (or set VERIFIERS_VENV):" >&2
    echo "  python3 -m venv .venv-verifiers && .venv-verifiers/bin/pip install 'verifiers[openenv]==0.4.0'" >&2
    exit 2
fi
if [[ ! -x "$GYM_MCP_VENV/bin/gym-mcp" ]]; then
    echo "no gym-mcp in $GYM_MCP_VENV; install it (or set GYM_MCP_VENV):" >&2
    echo "  python3 -m venv .venv && .venv/bin/pip install -e '.[openenv]'" >&2
    exit 2
fi
# verifiers runs its chat program as a uv script: uv must be on PATH (the venv's bin comes first)
export PATH="$VERIFIERS_VENV/bin:$PATH"
if ! command -v uv >/dev/null; then
    echo "uv is not on PATH; verifiers needs it for its chat program:" >&2
    echo "  $VERIFIERS_VENV/bin/pip install uv" >&2
    exit 2
fi

PY="$GYM_MCP_VENV/bin/python"
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_http() {  # URL LOGFILE PID: wait until URL answers 200, or fail with the log
    for _ in $(seq 1 240); do
        if "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$1" 2>/dev/null; then
            return 0
        fi
        kill -0 "$3" 2>/dev/null || { echo "process for $1 exited:" >&2; tail -20 "$2" >&2; exit 1; }
        sleep 0.5
    done
    echo "timed out waiting for $1" >&2; tail -20 "$2" >&2; exit 1
}

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

START=$(date +%s.%N)
TASKS="$OUT_DIR/tasks.jsonl"
"$GYM_MCP_VENV/bin/gym-mcp" synth "$ENV_NAME" -n "$N" -o "$TASKS" >"$OUT_DIR/synth.log" 2>&1
N=$(grep -c . "$TASKS")

ENV_PORT=$(free_port)
"$GYM_MCP_VENV/bin/gym-mcp" serve-openenv "$ENV_NAME" --tasks "$TASKS" --port "$ENV_PORT" \
    --max-sessions "$CONCURRENCY" >"$OUT_DIR/env.log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$ENV_PORT/schema" "$OUT_DIR/env.log" "${PIDS[-1]}"

LLM_PORT=$(free_port)
"$PY" "$HERE/reference_llm.py" --tasks "$TASKS" --port "$LLM_PORT" >"$OUT_DIR/llm.log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$LLM_PORT/v1/models" "$OUT_DIR/llm.log" "${PIDS[-1]}"

RESETS=$("$PY" -c 'import sys; print(", ".join(f"{{task_index = {i}}}" for i in range(int(sys.argv[1]))))' "$N")
MAX_TURNS=$("$PY" -c 'import json, sys; print(2 + max(len(json.loads(l)["reference_calls"]) for l in open(sys.argv[1]) if l.strip()))' "$TASKS")
cat >"$OUT_DIR/eval.toml" <<EOF
model = "gym-mcp-reference"
push = false
max_concurrent = $CONCURRENCY
output_dir = "$OUT_DIR/vf"

[client]
base_url = "http://127.0.0.1:$LLM_PORT/v1"
api_key_var = "REFERENCE_LLM_KEY"

[env.taskset]
id = "openenv"
base_url = "http://127.0.0.1:$ENV_PORT"
resets = [$RESETS]

[env.player]
max_turns = $MAX_TURNS

[env.player.harness]
id = "null"

[env.player.runtime]
type = "subprocess"
EOF

EVAL_START=$(date +%s.%N)
status=0
(cd "$OUT_DIR" && REFERENCE_LLM_KEY=unused "$VERIFIERS_VENV/bin/vf-eval" @ eval.toml --no-rich) \
    >"$OUT_DIR/eval.log" 2>&1 || status=$?
END=$(date +%s.%N)
if [[ $status -ne 0 ]]; then
    echo "vf-eval failed (exit $status); last lines of $OUT_DIR/eval.log:" >&2
    tail -30 "$OUT_DIR/eval.log" >&2
    exit 1
fi

"$PY" - "$OUT_DIR" "$N" "$START" "$EVAL_START" "$END" <<'EOF'
import glob, json, sys

out, n, start, eval_start, end = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
rows = []
for path in sorted(glob.glob(f"{out}/vf/*/traces.jsonl")):
    for line in open(path):
        if line.strip():
            rollout = json.loads(line)
            for trace in rollout.get("traces") or [{}]:
                score = (trace.get("rewards") or {}).get("openenv_reward", {}).get("score")
                reset = rollout["task"]["data"].get("reset", {})
                rows.append((reset.get("task_index"), score, trace.get("stop_condition"), rollout.get("errors")))
rows.sort(key=lambda r: (r[0] is None, r[0]))
for index, score, stop, errors in rows:
    print(f"task_index={index}: openenv_reward={score} stop={stop}" + (f" errors={errors}" if errors else ""))
perfect = sum(1 for r in rows if r[1] == 1.0)
print(f"episodes: {len(rows)} (of {n} resets); openenv_reward 1.0: {perfect}; "
      f"wall: {end - start:.1f} s total, {end - eval_start:.1f} s in vf-eval")
print(f"files: {out}")
sys.exit(0 if rows and len(rows) == n and perfect == len(rows) else 1)
EOF
