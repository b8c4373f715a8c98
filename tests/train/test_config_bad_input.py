"""A training config of the wrong shape is one clear line, never a traceback or a silent coercion."""

from __future__ import annotations

from pathlib import Path

import pytest

from gym_mcp.errors import ConfigError
from gym_mcp.train import TrainConfig


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'sft_steps = "5"\n', "sft_steps must be an integer, got '5'"),
        (b"sft_steps = true\n", "sft_steps must be an integer, got True"),
        (b"learning_rate = true\n", "learning_rate must be a number, got True"),
        (b'skip_variants = "missing_param"\n', "skip_variants must be a list of strings, got 'missing_param'"),
        (b"skip_variants = [1]\n", "skip_variants must be a list of strings, got [1]"),
        (b"model = 5\n", "model must be a string, got 5"),
        (b'model = "\xff"\n', "not UTF-8 text (byte 0xff at line 1, column 10)"),
        (b'servers = "banking"\n', "servers must be a table of server = share, or a list of servers"),
        (b'servers = ["banking", "bankin"]\n', "servers: unknown server(s) 'bankin' (bundled servers and"),
        (b"servers = { banking = 0.5, crm = 0.4 }\n", "servers: the shares must sum to 1, they sum to 0.9"),
        (b"servers = { banking = 1.5, crm = -0.5 }\n", "servers: every share must be a number > 0"),
        (b'servers = ["crm", "crm"]\n', "servers: ['crm', 'crm'] names a server twice"),
        (b'servers = ["crm", "maps"]\neval_servers = ["maps"]\n', "eval_servers: maps also trained on"),
        (b'eval_servers = ["banking"]\n', "eval_servers: banking also trained on"),
        (b'eval_servers = ["nowhere"]\n', "eval_servers: unknown server(s) 'nowhere'"),
        (b'server = "nowhere"\n', "server: unknown server(s) 'nowhere'"),
        (b'server = "crm"\nservers = ["banking", "maps"]\n', "server: 'crm' beside servers; name the training"),
        (b'tasks = "t.jsonl"\nservers = ["crm"]\n', "servers: a tasks file's tasks name their own servers"),
    ],
)
def test_wrong_types_and_bytes_are_one_line(tmp_path: Path, text: bytes, message: str) -> None:
    path = tmp_path / "train.toml"
    path.write_bytes(text)
    with pytest.raises(ConfigError) as caught:
        TrainConfig.from_toml(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_servers_trained_on_main_job_one_server_or_several() -> None:
    from gym_mcp.train.config import MAIN_JOB_SERVERS

    assert TrainConfig().train_servers == MAIN_JOB_SERVERS and len(MAIN_JOB_SERVERS) >= 2
    assert TrainConfig(server="crm").train_servers == {"crm": 1.0}  # one server names the run's only one
    assert TrainConfig(servers=["crm", "maps"]).train_servers == {"crm": 0.5, "maps": 0.5}
    assert TrainConfig(servers={"crm": 0.25, "maps": 0.75}, eval_servers=["banking"]).all_servers == [
        "crm",
        "maps",
        "banking",
    ]


def test_the_shipped_configs_still_load() -> None:
    root = Path(__file__).resolve().parents[2]
    for name in ("train_cpu.toml", "train_gpu.toml"):
        TrainConfig.from_toml(root / "examples" / name)


def test_the_efficiency_options_reach_the_training_reward_and_need_the_grounded_one() -> None:
    from gym_mcp.train.config import make_reward

    config = TrainConfig(reward_extra_call_cost=1.0, reward_stop_required=True, reward_budget_growth=0.0)
    reward = make_reward(config.reward, config)
    assert (reward.extra_call_cost, reward.stop_required, reward.efficiency_b) == (1.0, True, 0.0)
    assert make_reward("grounded", TrainConfig()) == make_reward("grounded")  # the defaults change nothing
    with pytest.raises(ConfigError, match="need reward = 'grounded'"):
        TrainConfig(reward="prove", reward_stop_required=True)
    with pytest.raises(ConfigError, match="sft_needless must be in"):
        TrainConfig(sft_needless=1.5)
