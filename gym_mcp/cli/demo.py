"""A scripted agent playing a few episodes of a bundled environment (the README's main job).

Each demo task comes with reference calls; its expected final state is found the way task
synthesis verifies tasks: by replaying those calls on a freshly reset server and taking the
fingerprint. The scripted agent then plays the task through ``gym.make`` like a model would
(Hermes ``<tool_call>`` text, reading observations to decide its next call), and the default
reward says whether its final state matches. One agent per server makes a mistake on purpose,
to show a 0 reward and an error observation.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from gym_mcp import env_id
from gym_mcp.cli.args import positive
from gym_mcp.env.mcp import MCPEnv
from gym_mcp.playback import replay
from gym_mcp.servers import BUNDLED
from gym_mcp.tasks import Task

__all__ = ["DEMO_TASKS", "DemoTask", "register", "run_demo"]


def register(sub: Any) -> None:
    """Add ``demo`` to the ``gym-mcp`` subparsers."""
    demo = sub.add_parser("demo", help="a scripted agent plays episodes of a bundled environment")
    demo.add_argument("--server", choices=sorted(BUNDLED), default="banking", help="bundled server")
    demo.add_argument("--transport", choices=["inprocess", "stdio", "http"], default="stdio")
    demo.add_argument("--episodes", type=positive, default=3, help="episodes to play")
    demo.set_defaults(run=lambda args: run_demo(server=args.server, transport=args.transport, episodes=args.episodes))


Script = Callable[[], Generator[str, str, None]]


def _ref(name: str, **arguments: Any) -> dict[str, Any]:
    """A reference call as tasks store it."""
    return {"name": name, "arguments": arguments}


def _call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


@dataclass(frozen=True)
class DemoTask:
    """A task, the calls that solve it, and a scripted agent that plays it."""

    id: str
    instruction: str
    reference_calls: tuple[dict[str, Any], ...]
    agent: Script


def _banking() -> list[DemoTask]:
    def move_money() -> Generator[str, str, None]:
        obs = yield _call("get_balance", account_id="ACC-1001")
        balance = json.loads(obs)["balance"]
        obs = yield _call("transfer_funds", from_account_id="ACC-1001", to_account_id="ACC-1002", amount=40.0)
        yield f"Moved $40.00 from ACC-1001 (balance was ${balance:.2f}) to ACC-1002."

    def lock_card() -> Generator[str, str, None]:
        yield _call("lock_card", card_id="CRD-1001")
        yield "Card CRD-1001 is locked."

    def wrong_account() -> Generator[str, str, None]:
        yield '<tool_call>{"name": "deposit", "arguments": {"account_id": "ACC-1003", "amount": </tool_call>'
        yield _call("deposit", account_id="ACC-1001", amount=25.0, description="gift")  # wrong account
        yield "Deposited $25."

    return [
        DemoTask(
            "banking-move-40",
            "Please move $40 from my checking account ACC-1001 to my savings account ACC-1002.",
            (_ref("transfer_funds", from_account_id="ACC-1001", to_account_id="ACC-1002", amount=40.0),),
            move_money,
        ),
        DemoTask(
            "banking-lock-card",
            "I can't find my debit card CRD-1001. Lock it so nobody can use it.",
            (_ref("lock_card", card_id="CRD-1001"),),
            lock_card,
        ),
        DemoTask(
            "banking-deposit-gift",
            "Deposit a $25 gift into account ACC-1003 with the description 'gift'.",
            (_ref("deposit", account_id="ACC-1003", amount=25.0, description="gift"),),
            wrong_account,
        ),
    ]


def _shopping() -> list[DemoTask]:
    def cancel() -> Generator[str, str, None]:
        obs = yield _call("get_order", order_id="ORD-1084")
        status = json.loads(obs)["status"]
        yield _call("cancel_order", order_id="ORD-1084")
        yield f"Order ORD-1084 was {status}; it is now cancelled."

    def add_to_cart() -> Generator[str, str, None]:
        obs = yield _call("get_product", product_id="PRD-1001")
        stock = json.loads(obs)["stock"]
        yield _call("add_to_cart", customer_id="CUS-1001", product_id="PRD-1001", quantity=2)
        yield f"Added 2 e-readers ({stock} were in stock)."

    def wrong_order() -> Generator[str, str, None]:
        yield _call("cancel_order", order_id="ORD-1063")  # shipped: the server refuses
        yield _call("cancel_order", order_id="ORD-1084")  # not the order the user meant
        yield "Cancelled."

    return [
        DemoTask(
            "shopping-cancel",
            "Cancel my order ORD-1084, I ordered it by mistake.",
            (_ref("cancel_order", order_id="ORD-1084"),),
            cancel,
        ),
        DemoTask(
            "shopping-cart",
            "Customer CUS-1001 wants two of product PRD-1001 in their cart.",
            (_ref("add_to_cart", customer_id="CUS-1001", product_id="PRD-1001", quantity=2),),
            add_to_cart,
        ),
        DemoTask(
            "shopping-cancel-paid",
            "Cancel order ORD-1076 please.",
            (_ref("cancel_order", order_id="ORD-1076"),),
            wrong_order,
        ),
    ]


def _calendar() -> list[DemoTask]:
    meeting = {
        "organizer_id": "PER-1001",
        "title": "Design review",
        "start": "2026-01-20T09:00",
        "end": "2026-01-20T10:00",
        "attendee_ids": ["PER-1002"],
    }

    def schedule() -> Generator[str, str, None]:
        obs = yield _call("find_free_slot", person_ids=["PER-1001", "PER-1002"], date="2026-01-20", duration_minutes=60)
        slot = json.loads(obs)
        start = slot.get("start") or slot.get("slot", {}).get("start")
        end = slot.get("end") or slot.get("slot", {}).get("end")
        yield _call(
            "create_event",
            organizer_id="PER-1001",
            title="Design review",
            start=start,
            end=end,
            attendee_ids=["PER-1002"],
        )
        yield f"Booked 'Design review' {start} to {end}."

    def cancel_as_organizer() -> Generator[str, str, None]:
        obs = yield _call("get_event", event_id="EVT-1050")
        organizer = json.loads(obs)["organizer"]["id"]
        yield _call("cancel_event", event_id="EVT-1050", acting_person_id=organizer)
        yield "The retrospective is cancelled."

    def wrong_person() -> Generator[str, str, None]:
        yield _call("cancel_event", event_id="EVT-1050", acting_person_id="PER-1033")  # not the organizer
        yield "I could not cancel it."

    return [
        DemoTask(
            "calendar-schedule",
            "Find the first free hour for PER-1001 and PER-1002 on 2026-01-20 and book a 'Design review' "
            "organized by PER-1001 with PER-1002 invited.",
            ({"name": "create_event", "arguments": meeting},),
            schedule,
        ),
        DemoTask(
            "calendar-cancel",
            "Cancel the Mercury retrospective, event EVT-1050, on behalf of its organizer.",
            (_ref("cancel_event", event_id="EVT-1050", acting_person_id="PER-1023"),),
            cancel_as_organizer,
        ),
        DemoTask(
            "calendar-cancel-2",
            "Cancel event EVT-1050 for its organizer, Samuel Dubois (PER-1023).",
            (_ref("cancel_event", event_id="EVT-1050", acting_person_id="PER-1023"),),
            wrong_person,
        ),
    ]


DEMO_TASKS: dict[str, Callable[[], list[DemoTask]]] = {
    "banking": _banking,
    "shopping": _shopping,
    "calendar": _calendar,
}


def verified_tasks(server: str, demos: list[DemoTask], transport: str = "inprocess") -> list[Task]:
    """Tasks whose expected fingerprints come from replaying their reference calls."""
    env = MCPEnv(server, transport=transport)  # type: ignore[arg-type]
    tasks = []
    try:
        for demo in demos:
            task = Task(id=demo.id, server=server, instruction=demo.instruction, reference_calls=demo.reference_calls)
            result = replay(env, task)
            if not result.ok:
                assert result.failed is not None
                raise RuntimeError(f"demo task {demo.id}: reference call failed: {result.failed.output}")
            tasks.append(Task.from_dict({**task.to_dict(), "expected_fingerprint": result.fingerprint}))
    finally:
        env.close()
    return tasks


def _short(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _play(env: gym.Env[str, Any], task: Task, agent: Script) -> Iterator[str]:
    from gym_mcp.evaluation.report import fixed

    obs, info = env.reset(options={"task_id": task.id})
    yield f"  user: {_short(obs)}"
    script = agent()
    action = next(script)
    while True:
        obs, reward, terminated, truncated, info = env.step(action)
        shown = action if "<tool_call>" not in action else action.replace("<tool_call>", "").replace("</tool_call>", "")
        yield f"  agent: {_short(shown)}"
        if terminated or truncated:
            counts = ", ".join(f"{k}={info[k]}" for k in ("num_calls", "invalid_calls", "tool_errors"))
            yield f"  -> reward {fixed(float(reward), 1)} (state match: {info.get('state_match')}; {counts})"
            return
        yield f"  tool: {_short(obs)}"
        try:
            action = script.send(obs)
        except StopIteration:
            action = "(no more actions)"


def run_demo(*, server: str = "banking", transport: str = "stdio", episodes: int = 3) -> int:
    """Play ``episodes`` demo episodes and print what happened.

    Args:
        server: Bundled server name.
        transport: How the environment talks to the server.
        episodes: Number of episodes (cycling through the server's demo tasks).

    Returns:
        The exit status (0).
    """
    from gym_mcp.evaluation.report import fixed

    demos = DEMO_TASKS[server]()
    start = time.perf_counter()
    print(f"gym-mcp demo: {server} over {transport}; verifying {len(demos)} tasks by replay...", flush=True)
    tasks = verified_tasks(server, demos)
    env = gym.make(env_id(server), transport=transport, tasks=tasks, max_steps=8)
    rewards = []
    try:
        for i in range(episodes):
            task, demo = tasks[i % len(tasks)], demos[i % len(demos)]
            print(f"\nepisode {i + 1}/{episodes}: task {task.id}", flush=True)
            for line in _play(env, task, demo.agent):
                print(line, flush=True)
                if line.startswith("  -> reward"):
                    rewards.append(float(line.split()[2]))
    finally:
        env.close()
    print(
        f"\n{len(rewards)} episodes, mean reward {fixed(sum(rewards) / max(len(rewards), 1), 2)}, "
        f"{time.perf_counter() - start:.1f}s"
    )
    return 0
