"""A finished training run as a folder that loads anywhere with plain transformers and peft.

A run folder (``gym-mcp train``'s ``output_dir``) is made to resume: its ``checkpoint/`` holds
the adapter beside accelerate's optimizer state and RNGs, and its ``adapter_config.json`` names
the base model by the path it had on the training machine. `export_run` writes what another
machine needs, and nothing else:

- the adapter (``adapter_model.safetensors``, byte for byte the checkpoint's) with an
  ``adapter_config.json`` naming the base by a portable name: its Hugging Face id (`base_model_id`),
  or what ``base=`` says; or, with ``merge=True``, the base model with the adapter merged in
  (``merge_and_unload``), which needs no base at all;
- the tokenizer, with the chat template training rendered with: the model's own when it renders
  tools, else gym-mcp's compact prompt as a template (`compact_chat_template`), so
  ``apply_chat_template(messages, tools=...)`` gives the tokens the adapter was trained on;
- a model card (``README.md``): the base, the run's settings and figures, how to load it.

Why a hub id and not a folder: ``AutoPeftModelForCausalLM.from_pretrained(folder)`` loads the
base by that name, which only a hub id means the same on every machine. Where the base is a
local folder instead (no network, a private copy), plain peft takes it without touching the
export: ``PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(local_base), folder)``;
``base=`` writes another name in for loaders that only read the config.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gym_mcp.errors import ConfigError, DependencyMissing

__all__ = [
    "ADAPTER_FILES",
    "RunFolder",
    "base_model_id",
    "check_export_dir",
    "check_run",
    "export_run",
    "model_card",
    "trained_on_default_weights",
]

ADAPTER_FILES = ("adapter_model.safetensors", "adapter_config.json")
"""The checkpoint files an export takes the adapter from (the rest of ``checkpoint/`` is for resuming)."""

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_CACHE_SNAPSHOT = re.compile(r"(?:^|/)models--([\w.-]+?)--([\w.-]+)/snapshots/[^/]+/?$")


class RunFolder:
    """A training run folder, checked (see `check_run`).

    Attributes:
        path: The run folder.
        checkpoint: Its ``checkpoint/`` folder.
        config: Its ``config.json`` (the `TrainConfig` the run was made with, as a dict).
        step: The step the checkpoint was saved at (from ``metrics.jsonl``; None without it).
        total: The steps the run was set to take (SFT and GRPO).
    """

    def __init__(self, path: Path, config: dict[str, Any]) -> None:
        self.path = path
        self.checkpoint = path / "checkpoint"
        self.config = config
        self.metrics = _metrics(path / "metrics.jsonl")
        self.step: int | None = max((int(r.get("step", 0)) for r in self.metrics), default=None)
        self.total = int(config.get("sft_steps", 0)) + int(config.get("grpo_steps", 0))

    @property
    def finished(self) -> bool:
        """Whether the run reached its last step (``summary.json`` is written at the very end)."""
        return (self.path / "summary.json").is_file()


def _metrics(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:  # a line cut short by a crash: the rows before it still count
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def check_run(run: str | os.PathLike[str]) -> RunFolder:
    """Check that ``run`` is a training run folder with an adapter checkpoint (no model is loaded).

    Args:
        run: A ``gym-mcp train`` output folder.

    Returns:
        The run.

    Raises:
        ConfigError: The folder is missing, is not a run folder (no ``config.json`` of a training
            run) or holds no adapter checkpoint; the message names the path.
    """
    path = Path(run)
    if not path.exists():
        raise ConfigError(f"run folder {str(path)!r} does not exist")
    if not path.is_dir():
        raise ConfigError(f"{str(path)!r} is not a folder; give a training run folder (gym-mcp train's output_dir)")
    config_file = path / "config.json"
    try:
        config = json.loads(config_file.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        config = None
    if not isinstance(config, dict) or "model" not in config or "lora_r" not in config:
        raise ConfigError(f"{str(path)!r} is not a training run folder (no config.json of gym-mcp train in it)")
    missing = [name for name in ADAPTER_FILES if not (path / "checkpoint" / name).is_file()]
    if missing:
        raise ConfigError(
            f"{str(path)!r} holds no adapter checkpoint (checkpoint/{missing[0]} is missing): the run saved none yet"
        )
    return RunFolder(path, config)


def check_export_dir(out: str | os.PathLike[str]) -> Path:
    """Check that ``out`` can become an export folder: new or empty, in a folder that takes files.

    Raises:
        ConfigError: ``out`` is a file or a folder with files in it, or its parent does not
            exist or cannot be written.
    """
    path = Path(out)
    if path.is_file():
        raise ConfigError(f"{str(path)!r} is a file; give a new folder to export into")
    if path.is_dir() and any(path.iterdir()):
        raise ConfigError(f"{str(path)!r} is a folder with files in it; give a new or empty folder")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise ConfigError(f"the folder {str(parent)!r} of {str(path)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write in {str(parent)!r}")
    return path


def base_model_id(model: str) -> str | None:
    """The Hugging Face id of a `TrainConfig.model`, or None when it cannot be told.

    Known: the default model (``"smollm2"``, its ``.gguf`` file or its converted folder), a
    Hugging Face id, a folder in the Hugging Face cache (``models--ORG--NAME/snapshots/REV``),
    and a folder whose ``config.json`` records the id it was loaded from.

    Args:
        model: The run's ``model`` setting.
    """
    from gym_mcp.policies.weights import DEFAULT_MODEL_HUB_ID

    if trained_on_default_weights(model):
        return DEFAULT_MODEL_HUB_ID
    path = Path(model).expanduser()
    if not path.exists():
        return model if _HUB_ID.match(model) else None
    snapshot = _CACHE_SNAPSHOT.search(path.resolve().as_posix())
    if snapshot:
        return f"{snapshot.group(1)}/{snapshot.group(2)}"
    try:
        recorded = json.loads((path / "config.json").read_text()).get("_name_or_path")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(recorded, str) and _HUB_ID.match(recorded) and not Path(recorded).exists():
        return recorded
    return None


def trained_on_default_weights(model: str) -> bool:
    """Whether a `TrainConfig.model` is the default model as gym-mcp ships it (the Q4_1 GGUF's weights).

    Args:
        model: The run's ``model`` setting: ``"smollm2"``, the package's ``.gguf`` file, or the
            folder it is converted into.
    """
    from gym_mcp.policies.weights import DEFAULT_MODEL, DEFAULT_MODEL_GGUF, default_model_dir

    path = Path(model).expanduser()
    if model == DEFAULT_MODEL or path.name == DEFAULT_MODEL_GGUF[1]:
        return True
    return path.is_dir() and path.resolve() == default_model_dir().resolve()


def export_run(
    run: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    merge: bool = False,
    base: str | None = None,
) -> Path:
    """Write a run's adapter (or merged model), tokenizer, chat template and model card into ``out``.

    The folder appears whole or not at all (it is written beside ``out`` and renamed).

    Args:
        run: A ``gym-mcp train`` run folder with a checkpoint.
        out: A new (or empty) folder.
        merge: Write the base model with the adapter merged in (``merge_and_unload``) instead of
            the adapter: a plain transformers model, no peft needed to load it.
        base: The base model's name in ``adapter_config.json`` and the card (default: its
            Hugging Face id, `base_model_id`). A path is written as given: use one only for the
            machine that will load it.

    Returns:
        ``out``.

    Raises:
        ConfigError: ``run`` is not a run folder with a checkpoint, ``out`` cannot be written,
            or the base model's id cannot be told and ``base`` is not given.
        DependencyMissing: The ``[train]`` extra is missing.
    """
    folder = check_run(run)
    target = check_export_dir(out)
    model = str(folder.config["model"])
    name = base or base_model_id(model)
    if not name:
        raise ConfigError(
            f"cannot tell the Hugging Face id of the base model {model!r}; name it with base= (--base ID)"
        )
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise DependencyMissing("export needs the [train] extra: pip install -e '.[train]'", extra="train") from exc
    from gym_mcp.policies.weights import load_causal_lm, resolve_model

    local = resolve_model(model, verbose=True)
    tmp = target.absolute().with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        tokenizer = AutoTokenizer.from_pretrained(local, local_files_only=True)
        fmt = _install_template(tokenizer, str(folder.config.get("prompt_format", "auto")))
        if merge:
            from peft import PeftModel

            merged = PeftModel.from_pretrained(load_causal_lm(local), str(folder.checkpoint)).merge_and_unload()
            merged.config._name_or_path = name  # where a config records its source: the name, not this machine's path
            merged.save_pretrained(tmp)
        else:
            _write_adapter(folder.checkpoint, tmp, name)
        tokenizer.save_pretrained(tmp)
        if (folder.path / "training.png").is_file():
            shutil.copyfile(folder.path / "training.png", tmp / "training.png")
        (tmp / "README.md").write_text(model_card(folder, name, fmt, merged=merge))
        if target.is_dir():
            target.rmdir()  # empty (checked): the rename takes its place
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _install_template(tokenizer: Any, prompt_format: str) -> str:
    """Give ``tokenizer`` the chat template training rendered with; the format's name."""
    from gym_mcp.policies.compact_template import compact_chat_template
    from gym_mcp.policies.prompt import prompt_format as format_for
    from gym_mcp.policies.prompt import tokenizer_markers

    fmt = format_for(tokenizer, prompt_format)
    if fmt.name == "compact":
        tokenizer.chat_template = compact_chat_template(tokenizer_markers(tokenizer))
    return fmt.name


def _write_adapter(checkpoint: Path, out: Path, base: str) -> None:
    """The checkpoint's adapter weights as they are, and its config with a portable base name."""
    shutil.copyfile(checkpoint / "adapter_model.safetensors", out / "adapter_model.safetensors")
    config = json.loads((checkpoint / "adapter_config.json").read_text())
    config["base_model_name_or_path"] = base
    # the trainer wraps the model with get_peft_model and no task type; a causal LM's lets
    # PeftModel.from_pretrained build PeftModelForCausalLM (generate, the causal-LM head's API)
    config["task_type"] = config.get("task_type") or "CAUSAL_LM"
    config["inference_mode"] = True
    (out / "adapter_config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def _size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def _figures(folder: RunFolder) -> list[str]:
    """The run's figures for the card: steps, losses and rewards, the held-out table, time and memory."""
    lines = []
    step = folder.step if folder.step is not None else "?"
    state = "finished" if folder.finished else "not finished: the checkpoint is the last one saved"
    lines.append(f"- steps: {step} of {folder.total} ({state})")
    sft = [r for r in folder.metrics if r.get("phase") == "sft" and isinstance(r.get("loss"), int | float)]
    if sft:
        first, last = sft[0]["loss"], sft[-1]["loss"]
        lines.append(f"- SFT: {len(sft)} steps, loss {first:.3f} at the first, {last:.3f} at the last")
    grpo = [r for r in folder.metrics if r.get("phase") == "grpo"]
    if grpo:
        tail = grpo[-min(len(grpo), 10) :]
        reward = sum(float(r.get("reward_mean", 0.0)) for r in tail) / len(tail)
        success = sum(float(r.get("success", 0.0)) for r in tail) / len(tail)
        lines.append(
            f"- GRPO: {len(grpo)} steps; over the last {len(tail)}, mean group reward {reward:.3f}, "
            f"success {100 * success:.0f}%"
        )
    summary = _json(folder.path / "summary.json")
    if summary.get("timings"):
        total = sum(float(v) for v in summary["timings"].values())
        memory = f", peak memory {summary['peak_rss_gb']:.2f} GB" if summary.get("peak_rss_gb") else ""
        lines.append(f"- time: {total:.0f} s{memory}")
    table = [str(summary.get("table") or ""), str(summary.get("breakdown") or "")]
    held_out = "\n\n".join(t for t in table if t)
    if held_out:
        lines += ["", "Held-out tasks (not trained on), base model against this one:", "", held_out]
    return lines


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _settings(config: Mapping[str, Any]) -> str:
    keys: tuple[str, ...] = ("server", "servers", "eval_servers", "sft_steps", "grpo_steps", "learning_rate")
    keys += ("precision", "lora_r", "lora_alpha", "lora_targets", "seed")
    return ", ".join(f"{k} = {json.dumps(config[k])}" for k in keys if config.get(k) not in (None, "", [], {}))


def _servers(config: Mapping[str, Any]) -> list[str]:
    """The servers a run trained on, as its ``config.json`` names them (see `TrainConfig.train_servers`)."""
    from gym_mcp.train.config import MAIN_JOB_SERVERS

    named = config.get("servers") or ([config["server"]] if config.get("server") else list(MAIN_JOB_SERVERS))
    return [str(name) for name in named]


def model_card(folder: RunFolder, base: str, fmt: str, *, merged: bool) -> str:
    """The export's ``README.md``: the base, the run's settings and figures, how to load and prompt it.

    Args:
        folder: The run.
        base: The base model's name (as in ``adapter_config.json``).
        fmt: The prompt format the run trained in (``"compact"`` or ``"chat_template"``).
        merged: The export holds a merged model rather than an adapter.
    """
    from gym_mcp.policies.weights import DEFAULT_MODEL_GGUF, DEFAULT_MODEL_HUB_ID

    config = folder.config
    server = ", ".join(_servers(config))
    front = ["---", f"base_model: {base}", f"library_name: {'transformers' if merged else 'peft'}"]
    front += ["pipeline_tag: text-generation", "tags:", "- gym-mcp", "- tool-calling", "- lora", "---", ""]
    title = f"{base} with a LoRA adapter merged in" if merged else f"a LoRA adapter for {base}"
    lines = [
        *front,
        f"# {server} tool calling: {title}",
        "",
        f"Trained with gym-mcp (`gym-mcp train`) on live episodes of MCP servers ({server}): a "
        "supervised warm start on replay-verified reference conversations, then GRPO on the "
        "environment's state-grounded reward.",
        "",
        "## Base model",
        "",
        f"`{base}`.",
    ]
    if base == DEFAULT_MODEL_HUB_ID and trained_on_default_weights(str(config.get("model"))):
        repo, file = DEFAULT_MODEL_GGUF
        lines += [
            "",
            f"The run trained on the weights gym-mcp ships for it: the Q4_1 GGUF file `{file}` of "
            f"`{repo}`, dequantized to float32. On `{base}`'s own full-precision weights the adapter "
            "runs as trained up to that quantization's error; for exactly the training-time outputs "
            + (
                "this merged export carries those weights already."
                if merged
                else f'load that base: `AutoModelForCausalLM.from_pretrained("{repo}", gguf_file="{file}")` '
                "(needs the `gguf` package), or export with `--merge`."
            ),
        ]
    lines += ["", "## Training", "", f"Settings: {_settings(config)}.", "", *_figures(folder)]
    if (folder.path / "training.png").is_file():
        lines += ["", "![training curves](training.png)"]
    lines += ["", "## Loading", "", "```python"]
    if merged:
        lines += [
            "from transformers import AutoModelForCausalLM, AutoTokenizer",
            "",
            'model = AutoModelForCausalLM.from_pretrained("THIS_FOLDER")',
            'tokenizer = AutoTokenizer.from_pretrained("THIS_FOLDER")',
        ]
    else:
        lines += [
            "from peft import AutoPeftModelForCausalLM, PeftModel",
            "from transformers import AutoModelForCausalLM, AutoTokenizer",
            "",
            f"# the base by its name ({base}): downloaded, or from the Hugging Face cache",
            'model = AutoPeftModelForCausalLM.from_pretrained("THIS_FOLDER")',
            "# or a base you have in a local folder (no network):",
            'model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained("LOCAL_BASE"), "THIS_FOLDER")',
            'tokenizer = AutoTokenizer.from_pretrained("THIS_FOLDER")',
        ]
    lines += [
        "",
        "# messages and tools in OpenAI's format; the chat template renders the tools as in training",
        "ids = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, return_tensors='pt')",
        "```",
        "",
    ]
    if fmt == "compact":
        lines += [
            "The chat template is gym-mcp's compact tool prompt (one line per tool, `<|user|>`, "
            "`<|assistant|>`, `<|tool|>` turns), the prompt the adapter was trained on: the base "
            "model's own template drops tools. The model answers with "
            '`<tool_call>{"name": ..., "arguments": {...}}</tool_call>` or with plain text when '
            "it is done: stop generating at `</tool_call>` (or at the end-of-text token) and read "
            "the call out of the tags. Pass call arguments as objects (as transformers' templates "
            "take them); JSON strings are written as they are.",
        ]
    else:
        lines += [
            "The chat template is the base model's own (it renders tools), the one the adapter "
            "was trained with: any server that applies it with its tool parser (vLLM, "
            "`transformers serve`) runs the model as trained.",
        ]
    lines += [
        "",
        "Or with gym-mcp: `gym-mcp serve-model --model LOCAL_BASE --adapter THIS_FOLDER` serves it "
        "as an OpenAI-compatible endpoint, and `LocalModel` plays environments with it.",
        "",
    ]
    return "\n".join(lines)
