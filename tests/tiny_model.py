"""A tiny, randomly initialised Llama and a BPE tokenizer trained on the spot (no download)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CORPUS = [
    '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}</tool_call>',
    "<|system|> <|user|> <|assistant|> <|tool|> You are a helpful assistant with tools.",
    "Show the balance of account ACC-1001, then deposit $25 into account ACC-1002. Done.",
    "The balance is 4853.32 dollars. I moved the money. Error: unknown tool.",
] * 20


def build_tiny_model(
    folder: Path, *, seed: int = 0, chat_template: str | None = None, hidden: int = 32, layers: int = 2
) -> Path:
    """Save a 2-layer Llama (~0.2M parameters; ``hidden`` and ``layers`` make it larger) and its tokenizer into ``folder``.

    With ``chat_template`` (a ChatML-style Jinja template, e.g. Qwen2.5's as TRL ships it) the
    tokenizer carries it, with ``<|im_start|>``/``<|im_end|>`` as special tokens and
    ``<|im_end|>`` as its end-of-text token, the way Qwen's instruct tokenizers do.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    if (folder / "config.json").exists():
        return folder
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<unk>", "<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(CORPUS, trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    if chat_template is not None:
        tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
        tokenizer.eos_token = "<|im_end|>"
        tokenizer.chat_template = chat_template
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=4096,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def teach(folder: Path, prompt: str, target: str, *, steps: int = 200, lr: float = 3e-3) -> None:
    """Overfit the tiny model until greedy decoding of ``prompt`` gives ``target`` (a real training loop).

    Training stops early, checked every 10 steps, once greedy decoding gives ``target`` and its
    end-of-text token and the loss is below 0.05 (a margin over the first step that gets it right,
    so that sampling at a temperature gives it too): about 120 steps on a 2,000-token prompt
    instead of all of ``steps`` (the most it trains).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
    ids = tokenizer(prompt + target + tokenizer.eos_token, return_tensors="pt")["input_ids"]
    prompt_ids = tokenizer(prompt, return_tensors="pt")["input_ids"]
    n_prompt = prompt_ids.shape[1]
    labels = ids.clone()
    labels[:, :n_prompt] = -100  # loss on the answer only
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    torch.manual_seed(0)
    for step in range(1, steps + 1):
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 10 == 0 and loss.item() < 0.05:
            said = _greedy(model, tokenizer, prompt_ids, ids.shape[1] - n_prompt + 2)
            if said.startswith(target + tokenizer.eos_token):
                break
    model.save_pretrained(folder)


def _greedy(model: Any, tokenizer: Any, prompt_ids: Any, new_tokens: int) -> str:
    """What greedy decoding of the prompt gives, special tokens kept."""
    import torch

    model.eval()
    with torch.no_grad():
        out = model.generate(prompt_ids, max_new_tokens=new_tokens, do_sample=False)
    model.train()
    return str(tokenizer.decode(out[0, prompt_ids.shape[1] :], skip_special_tokens=False))
