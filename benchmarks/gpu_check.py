"""The trainer on a GPU, in one call: the main job, GRPO and SFT against TRL, and a 0.5B model's speed.

Issue 40's device check, prepared to run in one short call on a lent GPU machine (see
``../shared/DEVICE.md`` for the calls that install what the machine lacks first). Four parts,
each bounded by ``--part-timeout`` seconds and each written to ``--out`` as soon as it ends, so a
part that runs out of time still leaves the others:

1. ``main``: the default main job (`TrainConfig()`: SmolLM2-135M, its synthesized tasks, SFT then
   GRPO, held-out evaluations before and after), in a subprocess: wall time per phase, held-out
   success before and after, peak GPU memory and peak RSS. Target: <= 60 s without the one-time
   GGUF conversion (the conversion is timed apart: the model is converted before the clock starts).
2. ``grpo``: ``bench_grpo_vs_trl.py`` on the same model and card: one GRPO update over one group,
   gym-mcp's against TRL's GRPOTrainer's, tokens/s and step memory.
3. ``sft``: ``bench_sft_vs_trl.py`` on the same model and card: one SFT update over 16 reference
   conversations, gym-mcp's (padded, packed) against TRL's SFTTrainer's (padded, padding-free),
   tokens/s and step memory.
4. ``big``: a random-init model of Qwen2.5-0.5B's shape with SmolLM2's tokenizer and vocabulary
   (0.40B parameters; weights do not change speed, and none are carried or downloaded) with
   LoRA: tokens/s of a training step (forward + backward + AdamW on a batch of rows) and of the
   rollout decode loop (`sample_replies`, one batch, counted in sampled tokens), and the peak
   GPU memory of each.

``--quick`` dry-runs all four on a CPU with the tests' tiny model and a small Qwen2 shape: what
to run here before spending device minutes.

Run (on the device, after the bundle calls): ``PYTHONPATH=/tmp/site USE_HUB_KERNELS=0 python
benchmarks/gpu_check.py --out $OUT``; here: ``python benchmarks/gpu_check.py --quick --out
/tmp/gpu_check``. Writes ``gpu_check.json`` and ``gpu_check.txt`` in ``--out``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import base_parser, table, write_result

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("main", "grpo", "sft", "big")
QWEN2_05B = {
    "hidden_size": 896,
    "intermediate_size": 4864,
    "num_hidden_layers": 24,
    "num_attention_heads": 14,
    "num_key_value_heads": 2,
    "vocab_size": 151936,
    "max_position_embeddings": 4096,
    "tie_word_embeddings": True,
}
"""Qwen2.5-0.5B's shape (494M parameters with its own 151,936-token vocabulary)."""
QWEN2_SMALL = {**QWEN2_05B, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
               "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 2048}  # fmt: skip
"""The same architecture, small enough for a CPU dry run."""


def _run(cmd: list[str], timeout: float, log: Path, env: dict[str, str] | None = None) -> tuple[int, float]:
    """Run ``cmd`` from the project root (output to ``log``); its exit status (124: timed out) and seconds."""
    started = time.perf_counter()
    with log.open("w") as f:
        try:
            code = subprocess.run(
                cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, timeout=timeout, env=env, check=False
            ).returncode
        except subprocess.TimeoutExpired:
            code = 124
    return code, round(time.perf_counter() - started, 1)


def part_main(out: Path, quick: bool, timeout: float) -> dict[str, Any]:
    """The default main job in a subprocess (the model converted first, outside its clock)."""
    from gym_mcp.policies.weights import resolve_model

    run = out / "main"
    settings: dict[str, Any] = {"output_dir": str(run)}
    started = time.perf_counter()
    if quick:
        from tests.tiny_model import build_tiny_model

        tiny = build_tiny_model(Path(tempfile.mkdtemp()) / "tiny")
        settings.update(model=str(tiny), n_tasks=40, eval_tasks=6, sft_steps=2, grpo_steps=1)
    else:
        resolve_model("smollm2", verbose=True)  # the one-time GGUF conversion, not the job's time
    conversion = round(time.perf_counter() - started, 1)
    script = (
        "import json, sys\n"
        "from gym_mcp.train import TrainConfig, train\n"
        f"r = train(TrainConfig(**json.loads({json.dumps(json.dumps(settings))})), progress=False)\n"
        "print('RESULT ' + json.dumps({k: r[k] for k in ('timings', 'peak_rss_gb', 'peak_gpu_gb')} | "
        "{'before': (r['before'] or {}).get('success'), 'after': (r['after'] or {}).get('success')}))\n"
    )
    code, seconds = _run([sys.executable, "-c", script], timeout, out / "main.log")
    found = [line for line in (out / "main.log").read_text().splitlines() if line.startswith("RESULT ")]
    result = json.loads(found[-1][len("RESULT ") :]) if found else {}
    return {"exit": code, "wall_s": seconds, "conversion_s": conversion, **result}


FULL_ARGS = {"grpo": ["--repeats", "5"], "sft": ["--batch", "16", "--repeats", "5"]}
"""Each against-TRL bench's options on the device (the main job's model either way)."""


def part_vs_trl(kind: str, out: Path, quick: bool, timeout: float, device: str) -> dict[str, Any]:
    """``bench_<kind>_vs_trl.py`` on the main job's model (the tiny one with ``--quick``), in a subprocess."""
    cmd = [sys.executable, f"benchmarks/bench_{kind}_vs_trl.py", "--device", device, "--out", str(out / kind)]
    cmd += ["--quick"] if quick else ["--model", "smollm2", *FULL_ARGS[kind]]
    code, seconds = _run(cmd, timeout, out / f"{kind}.log")
    saved = out / kind / f"{kind}_vs_trl.json"
    result = json.loads(saved.read_text()) if saved.exists() else {}
    keep = {k: v for k, v in result.items() if k not in {"machine", "created_unix"}}
    return {"exit": code, "wall_s": seconds, **keep}


def part_big(out: Path, quick: bool, device: str, rows: int, prompt_tokens: int, new_tokens: int) -> dict[str, Any]:
    """A random-init Qwen2 model with LoRA: training-step and decode tokens/s, and peak GPU memory."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer, Qwen2Config

    from gym_mcp.policies.decoding import sample_replies
    from gym_mcp.policies.weights import load_dtype, resolve_model
    from tests.tiny_model import build_tiny_model

    cuda = device.startswith("cuda")
    dtype = load_dtype(device)
    folder = build_tiny_model(Path(tempfile.mkdtemp()) / "tok") if quick else resolve_model("smollm2")
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    torch.manual_seed(0)
    config = Qwen2Config(**(QWEN2_SMALL if quick else QWEN2_05B) | {"vocab_size": len(tokenizer)})
    model = AutoModelForCausalLM.from_config(config, dtype=dtype).to(device)
    params = sum(p.numel() for p in model.parameters())
    lora = LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
    model = get_peft_model(model, lora)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize()

    def peak() -> float | None:
        return round(torch.cuda.max_memory_allocated() / 1e9, 2) if cuda else None

    ids = torch.randint(10, config.vocab_size, (rows, prompt_tokens), device=device)
    times = []
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    for _ in range(4):  # the first is a warm-up
        sync()
        t0 = time.perf_counter()
        with torch.autocast(device_type="cuda" if cuda else "cpu", dtype=torch.bfloat16, enabled=cuda):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        sync()
        times.append(time.perf_counter() - t0)
    train_peak = peak()
    step_s = sorted(times[1:])[len(times[1:]) // 2]

    model.eval()
    prompt = "<|user|>\n" + "show the balance of account ACC-1001 " * max(1, prompt_tokens // 10) + "\n<|assistant|>\n"
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    decode = []
    for _ in range(2):  # the first is a warm-up
        sync()
        t0 = time.perf_counter()
        with torch.no_grad():
            replies = sample_replies(model, tokenizer, [prompt] * rows, temperature=1.0, max_new_tokens=new_tokens)
        sync()
        decode.append(time.perf_counter() - t0)
    produced = sum(len(r.token_ids) for r in replies)
    return {
        "parameters": params,
        "dtype": str(dtype),
        "rows": rows,
        "prompt_tokens": prompt_tokens,
        "train_step_s": round(step_s, 3),
        "train_tokens_per_s": round(rows * prompt_tokens / step_s, 1),
        "train_peak_gpu_gb": train_peak,
        "decode_s": round(decode[-1], 3),
        "decode_new_tokens": produced,
        "decode_tokens_per_s": round(produced / decode[-1], 1),
        "decode_peak_gpu_gb": peak(),
    }


def main() -> int:
    parser = base_parser(__doc__.splitlines()[0], repeats=1, quick_repeats=1)
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS), help="which parts (default all)")
    parser.add_argument("--part-timeout", type=float, default=240.0, help="seconds each subprocess part may take")
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda when torch sees one)")
    args = parser.parse_args()
    if args.part_timeout <= 0:
        parser.error(f"--part-timeout must be > 0, got {args.part_timeout}")
    from gym_mcp.policies.weights import resolve_device

    device = resolve_device(args.device or "auto")
    os.environ.setdefault("USE_HUB_KERNELS", "0")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results: dict[str, Any] = {"device": device, "quick": args.quick}
    if device.startswith("cuda"):
        import torch

        results["card"] = torch.cuda.get_device_name(0)

    def save() -> None:
        write_result(args.out, "gpu_check", {**results, "elapsed_s": round(time.perf_counter() - started, 1)})

    for part in args.parts:
        print(f"gpu_check: {part} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            if part == "main":
                results[part] = part_main(args.out, args.quick, args.part_timeout)
            elif part in FULL_ARGS:
                results[part] = part_vs_trl(part, args.out, args.quick, args.part_timeout, device)
            else:
                sizes = (2, 32, 8) if args.quick else (8, 512, 128)
                results[part] = part_big(args.out, args.quick, device, *sizes)
        except Exception as exc:  # a part that fails leaves the others' figures
            results[part] = {"error": f"{type(exc).__name__}: {exc}"}
        print(f"gpu_check: {part} done in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        save()
    rows = [[part, json.dumps(results.get(part, {}), default=str)[:300]] for part in args.parts]
    text = table(["part", "result"], rows, title=f"\ngpu_check on {results.get('card', device)}")
    (args.out / "gpu_check.txt").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
