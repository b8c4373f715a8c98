"""MCPEnv on real bundled servers: Gymnasium conformance, actions, rewards, snapshots, forks."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import gym_mcp
from gym_mcp import MCPEnv, Task, get_pool
from gym_mcp.errors import TaskError
from gym_mcp.tasks import load_tasks, save_tasks
from gym_mcp.transport.runner import run_sync
from tests.conftest import counter_source
from tests.helpers import verified_deposit_task


@pytest.mark.parametrize("env_id", gym_mcp.ENV_IDS)
def test_check_env_passes_for_every_registered_id(env_id: str) -> None:
    env = gym.make(env_id)
    try:
        check_env(env.unwrapped, skip_render_check=False)
    finally:
        env.close()


def test_every_bundled_server_is_registered() -> None:
    from gym_mcp.servers import BUNDLED

    assert {gym_mcp.env_id(n) for n in BUNDLED} <= set(gym.registry)
    assert "gym_mcp/Banking-v0" in gym.registry


def test_reset_returns_instruction_tools_and_messages() -> None:
    task = Task(id="t1", server="banking", instruction="What is the balance of ACC-1001?")
    env = gym.make("gym_mcp/Banking-v0", tasks=[task])
    obs, info = env.reset(seed=0)
    assert obs == task.instruction
    assert info["messages"] == [{"role": "user", "content": task.instruction}]
    names = {t["function"]["name"] for t in info["tools"]}
    assert {"get_balance", "transfer_funds"} <= names
    schema = next(t for t in info["tools"] if t["function"]["name"] == "get_balance")
    assert schema["type"] == "function"
    assert schema["function"]["parameters"]["required"] == ["account_id"]
    assert schema["function"]["description"]
    env.close()


def _balance(env: gym.Env, account: str) -> float:
    obs, *_ = env.step({"name": "get_balance", "arguments": {"account_id": account}})
    return float(json.loads(obs)["balance"])


def test_text_and_structured_actions_and_conversation() -> None:
    env = gym.make("gym_mcp/Banking-v0")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}</tool_call>'
    )
    assert json.loads(obs)["account_id"] == "ACC-1001"
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["messages"][1]["role"] == "assistant"
    assert info["messages"][1]["tool_calls"][0]["function"]["name"] == "get_balance"
    assert info["messages"][2]["role"] == "tool"
    assert info["messages"][2]["tool_call_id"] == info["messages"][1]["tool_calls"][0]["id"]
    # several calls in one action
    obs, *_, info = env.step(
        '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}</tool_call>'
        '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1002"}}</tool_call>'
    )
    assert obs.count("[get_balance]") == 2
    assert info["num_calls"] == 3
    # a text without a call is the final answer
    obs, reward, terminated, truncated, info = env.step("The balance is shown above.")
    assert terminated
    assert not truncated
    assert info["messages"][-1] == {"role": "assistant", "content": "The balance is shown above."}
    env.close()


@pytest.mark.parametrize(
    ("action", "expect"),
    [
        ('<tool_call>{"name": "get_balance", "arguments": {"account_id": </tool_call>', "not valid JSON"),
        ({"name": "no_such_tool", "arguments": {}}, "unknown tool 'no_such_tool'"),
        ({"name": "get_balance", "arguments": {"account_id": 1001}}, "must be a string"),
        ({"name": "get_balance", "arguments": {}}, "missing required argument(s) 'account_id'"),
        (
            {"name": "get_balance", "arguments": {"account_id": "ACC-1001", "pin": 1}},
            "unknown argument(s) 'pin'",
        ),
        ({"name": "get_balance", "arguments": ["ACC-1001"]}, "arguments must be a JSON object"),
        ({"name": "get_balance", "arguments": "ACC-1001"}, "not valid JSON"),
        ("x" * 40_000, "the limit is 32000"),
        (
            {
                "name": "deposit",
                "arguments": {"account_id": "ACC-1001", "amount": 1, "description": "y" * 40_000},
            },
            "limit",
        ),
        (12345, "unsupported action type int"),
        (None, "unsupported action type NoneType"),
        ({"tool_calls": "nope"}, "must be a list"),
    ],
)
def test_malformed_actions_become_error_observations(action: object, expect: str) -> None:
    env = gym.make("gym_mcp/Banking-v0")
    env.reset(seed=0)
    before = env.unwrapped.state.fingerprint()
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs.startswith("Error") or "Error:" in obs
    assert expect in obs
    assert not terminated
    assert info["invalid_calls"] >= 1
    assert info["num_calls"] == 0  # nothing reached the server
    assert env.unwrapped.state.fingerprint() == before
    # the episode goes on
    assert _balance(env, "ACC-1001") > 0
    env.close()


def test_tool_errors_are_observations_and_counted() -> None:
    env = gym.make("gym_mcp/Banking-v0")
    env.reset(seed=0)
    obs, _, terminated, _, info = env.step(
        {
            "name": "transfer_funds",
            "arguments": {"from_account_id": "ACC-1048", "to_account_id": "ACC-1001", "amount": 999999.0},
        }
    )
    assert obs.startswith("Error")
    assert not terminated
    assert info["tool_errors"] == 1
    assert info["invalid_calls"] == 0
    env.close()


def test_max_steps_truncates() -> None:
    env = gym.make("gym_mcp/Banking-v0", max_steps=3)
    env.reset(seed=0)
    results = [env.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    assert not any(r[2] for r in results)
    env.close()


def test_default_reward_is_final_state_match(tmp_path: pytest.TempPathFactory) -> None:
    task = verified_deposit_task()
    path = tmp_path / "tasks.jsonl"  # type: ignore[operator]
    save_tasks([task], path)
    assert load_tasks(path) == [task]
    env = gym.make("gym_mcp/Banking-v0", tasks=str(path))
    # right trajectory
    env.reset(seed=1)
    env.step(dict(task.reference_calls[0]))
    _, reward, terminated, _, info = env.step("Done: deposited $25.")
    assert terminated
    assert reward == 1.0
    assert info["state_match"] is True
    # wrong amount
    env.reset(seed=1)
    env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 26.0, "description": "gift"}})
    _, reward, *_ = env.step("Done.")
    assert reward == 0.0
    # doing nothing
    env.reset(seed=1)
    _, reward, *_ = env.step("I did it.")
    assert reward == 0.0
    env.close()


def test_custom_reward_function() -> None:
    env = gym.make("gym_mcp/Banking-v0", reward=lambda ep: float(len(ep.calls)))
    env.reset(seed=0)
    env.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}})
    _, reward, *_ = env.step("ok")
    assert reward == 1.0
    env.close()


def test_reset_restores_exact_state_in_a_warm_server() -> None:
    env = MCPEnv("banking", transport="stdio")
    env.reset(seed=0)
    pid = env.live.connection.pid  # type: ignore[union-attr]
    fp0, digest0 = env.state.fingerprint(), env.state.snapshot().digest
    env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 10.0}})
    assert env.state.fingerprint() != fp0
    env.reset(seed=0)
    assert env.state.fingerprint() == fp0
    assert env.state.snapshot().digest == digest0
    assert env.live.connection.pid == pid  # no respawn  # type: ignore[union-attr]
    env.close()


def test_closed_envs_return_warm_servers_to_the_pool() -> None:
    source = counter_source("stdio")
    env = MCPEnv(source)
    env.reset(seed=0)
    pid = env.live.connection.pid  # type: ignore[union-attr]
    env.close()
    pool = run_sync(_pool())
    launched = pool.launched
    env2 = MCPEnv(source)
    env2.reset(seed=0)
    assert pool.launched == launched  # reused, not spawned
    assert env2.live.connection.pid == pid  # type: ignore[union-attr]
    env2.close()


async def _pool() -> gym_mcp.ServerPool:
    return get_pool()


def test_snapshot_exactness_over_200_random_write_episodes() -> None:
    rng = random.Random(0)
    env = MCPEnv(counter_source("inprocess"))
    _, _ = env.reset(seed=0)
    fp0 = env.state.fingerprint()
    digest0 = env.state.snapshot().digest
    for episode in range(200):
        env.reset(seed=episode)
        assert env.state.fingerprint() == fp0
        assert env.state.snapshot().digest == digest0
        mid = None
        for i in range(rng.randint(1, 6)):
            if rng.random() < 0.6:
                env.step({"name": "add_note", "arguments": {"text": f"e{episode} n{i} {rng.random():.6f}"}})
            else:
                env.step({"name": "delete_note", "arguments": {"note_id": rng.randint(1, 8)}})
            if i == 0:
                mid = (env.snapshot(), env.state.fingerprint())
        assert mid is not None
        env.restore(mid[0])
        assert env.state.fingerprint() == mid[1]
        env.reset(seed=episode)
        assert env.state.fingerprint() == fp0
    env.close()


def test_episode_snapshot_restore_and_fork() -> None:
    env = MCPEnv("banking")
    env.reset(seed=0)
    env.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 5.0}})
    snap = env.snapshot()
    forks = env.fork(3)
    try:
        fp = env.state.fingerprint()
        # identical at the fork point: state, conversation, counters
        for f in forks:
            assert f.state.fingerprint() == fp
            assert f.episode().messages == env.episode().messages
            assert f.counters == env.counters
            assert f.live is not env.live
        # then diverging
        for i, f in enumerate(forks):
            f.step({"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": float(i + 1)}})
        fps = {f.state.fingerprint() for f in forks}
        assert len(fps) == 3
        assert env.state.fingerprint() == fp  # the parent is untouched
        balances = sorted(_balance(f, "ACC-1001") for f in forks)
        assert balances[1] - balances[0] == pytest.approx(1.0)
        # restore the parent to the snapshot after diverging
        env.step({"name": "withdraw", "arguments": {"account_id": "ACC-1001", "amount": 20.0}})
        env.restore(snap)
        assert env.state.fingerprint() == fp
        assert env.counters["step"] == snap.steps
        assert len(env.episode().messages) == len(snap.messages)
    finally:
        for f in forks:
            f.close()
        env.close()


def test_unknown_server_and_bad_options_raise_clear_errors() -> None:
    from gym_mcp.errors import ConfigError, UnknownServerError

    with pytest.raises(
        UnknownServerError, match=r"bundled servers: banking, budget, calendar, crm, .*; compositions: food_payments, "
    ):
        MCPEnv("nope")
    with pytest.raises(ConfigError, match="unknown transport"):
        MCPEnv("banking", transport="carrier-pigeon")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="max_steps"):
        MCPEnv("banking", max_steps=0)


WRITES = {
    "banking": lambda r: r.choice(
        [
            {
                "name": "deposit",
                "arguments": {"account_id": f"ACC-10{r.randint(1, 60):02d}", "amount": r.randint(1, 500) / 4},
            },
            {
                "name": "withdraw",
                "arguments": {
                    "account_id": f"ACC-10{r.randint(1, 60):02d}",
                    "amount": float(r.randint(1, 300)),
                },
            },
            {
                "name": "transfer_funds",
                "arguments": {
                    "from_account_id": "ACC-1001",
                    "to_account_id": "ACC-1002",
                    "amount": float(r.randint(1, 90)),
                },
            },
            {"name": "lock_card", "arguments": {"card_id": f"CRD-10{r.randint(1, 90):02d}"}},
        ]
    ),
    "shopping": lambda r: r.choice(
        [
            {
                "name": "add_to_cart",
                "arguments": {
                    "customer_id": f"CUS-10{r.randint(1, 50):02d}",
                    "product_id": f"PRD-1{r.randint(1, 120):03d}",
                    "quantity": r.randint(1, 3),
                },
            },
            {"name": "cancel_order", "arguments": {"order_id": f"ORD-1{r.randint(1, 100):03d}"}},
            {"name": "checkout", "arguments": {"customer_id": f"CUS-10{r.randint(1, 50):02d}"}},
        ]
    ),
    "calendar": lambda r: r.choice(
        [
            {
                "name": "create_event",
                "arguments": {
                    "organizer_id": f"PER-10{r.randint(1, 40):02d}",
                    "title": "Sync",
                    "start": f"2026-02-{r.randint(16, 27)}T{r.randint(9, 15)}:00",
                    "end": f"2026-02-{r.randint(16, 27)}T{r.randint(9, 15)}:30",
                },
            },
            {
                "name": "respond_to_invitation",
                "arguments": {
                    "invitation_id": f"INV-1{r.randint(1, 300):03d}",
                    "person_id": f"PER-10{r.randint(1, 40):02d}",
                    "response": "accepted",
                },
            },
        ]
    ),
}


def test_snapshot_exactness_on_bundled_servers() -> None:
    """200 random write episodes over the bundled servers: every reset gives the identical state."""
    rng = random.Random(1)
    changed = 0
    for server, episodes in (("banking", 70), ("shopping", 65), ("calendar", 65)):
        env = MCPEnv(server)
        env.reset(seed=0)
        fp0, digest0 = env.state.fingerprint(), env.state.snapshot().digest
        for _ in range(episodes):
            for _ in range(rng.randint(1, 4)):
                env.step(WRITES[server](rng))
            changed += env.state.fingerprint() != fp0
            env.reset(seed=0)
            assert env.state.fingerprint() == fp0
            assert env.state.snapshot().digest == digest0
        env.close()
    assert changed >= 100  # most episodes really changed the state (124 of 200 with this seed)


def test_sync_api_from_threads_and_from_inside_a_running_loop() -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    def episode(account: str) -> str:
        env = MCPEnv("banking")
        try:
            env.reset(seed=0)
            obs, *_ = env.step({"name": "get_balance", "arguments": {"account_id": account}})
            return str(json.loads(obs)["account_id"])
        finally:
            env.close()

    accounts = [f"ACC-10{i:02d}" for i in range(1, 9)]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(episode, accounts)) == accounts

    async def notebook_cell() -> str:  # a thread that already runs an event loop (Jupyter, async apps)
        return episode("ACC-1009")

    assert asyncio.run(notebook_cell()) == "ACC-1009"


def test_reference_fingerprint_is_computed_by_replay_when_missing() -> None:
    calls = ({"name": "deposit", "arguments": {"account_id": "ACC-1003", "amount": 9.0}},)
    task = Task(id="hand-written", server="banking", instruction="Deposit $9 into ACC-1003.", reference_calls=calls)
    env = gym.make("gym_mcp/Banking-v0", tasks=[task])
    try:
        env.reset(seed=0)
        env.step(dict(calls[0]))
        _, reward, *_ = env.step("Done.")
        assert reward == 1.0
        env.reset(seed=0)
        env.step({"name": "deposit", "arguments": {"account_id": "ACC-1003", "amount": 8.0}})
        _, reward, *_ = env.step("Done.")
        assert reward == 0.0
    finally:
        env.close()


def test_a_reference_call_to_a_missing_tool_is_refused_at_reset_with_one_line() -> None:
    bad = Task.from_dict(
        {"id": "t1", "server": "banking", "instruction": "x", "reference_calls": [{"name": "nope", "arguments": {}}]}
    )
    env = MCPEnv("banking", tasks=[bad])
    try:
        with pytest.raises(
            TaskError, match="reference call 1 names tool 'nope', which the banking server does not have"
        ):
            env.reset(seed=0)
        good = Task(id="t2", server="banking", instruction="What is the balance of ACC-1001?")
        obs, _ = env.reset(options={"task": good})  # the env still works with a good task
        assert obs
    finally:
        env.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_steps": "5"}, "max_steps must be an integer, got '5'"),
        ({"max_steps": True}, "max_steps must be an integer, got True"),
        ({"call_timeout": True}, "call_timeout must be a finite number of seconds, got True"),
        ({"call_timeout": float("inf")}, "call_timeout must be a finite number of seconds, got inf"),
        ({"max_observation_chars": "big"}, "max_observation_chars must be an integer, got 'big'"),
        ({"transport": "carrier pigeon"}, "unknown transport 'carrier pigeon'"),
        ({"max_user_turns": 2.5}, "max_user_turns must be an integer, got 2.5"),
    ],
)
def test_settings_of_the_wrong_type_are_one_line(kwargs: dict[str, object], message: str) -> None:
    from gym_mcp.errors import ConfigError

    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        gym.make("gym_mcp/Banking-v0", **kwargs)


def test_max_calls_per_step_is_a_make_argument() -> None:
    env = gym.make("gym_mcp/Banking-v0", max_calls_per_step=2)
    try:
        env.reset(seed=0)
        call = {"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}
        obs, _, _, _, info = env.step([call, call, call])
        assert "only the first 2 were run" in obs and "not run (too many calls in one action)" in obs
        assert info["num_calls"] == 2 and info["invalid_calls"] == 1
    finally:
        env.close()


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
def test_the_first_env_of_a_process_can_be_made_inside_a_running_event_loop(transport: str) -> None:
    """``asyncio.run(main())`` where ``main`` makes the process's first env (an async app, a notebook)."""
    script = (
        "import asyncio, gymnasium as gym, gym_mcp\n"
        "async def main():\n"
        f"    env = gym.make('gym_mcp/Banking-v0', transport={transport!r})\n"
        "    env.reset(seed=0)\n"
        "    obs, *_ = env.step({'name': 'get_balance', 'arguments': {'account_id': 'ACC-1001'}})\n"
        "    env.close()\n"
        "    return obs\n"
        "print(asyncio.run(main()))\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert '"account_id":"ACC-1001"' in ran.stdout.replace(" ", "")
