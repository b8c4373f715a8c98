"""The budget server through a real MCP client: savings goals."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.budget.common import balance
from tests.servers.helpers import dump, one, scalar


def test_list_goals(bud: LiveServer) -> None:
    goals = bud.ok("list_goals")
    assert len(goals) == 8
    for goal in goals:
        assert goal["remaining"] == round(goal["target"] - goal["saved"], 2)
    active = bud.ok("list_goals", status="active")
    assert {g["status"] for g in active} == {"active"}
    assert all(g["needed_per_month"] for g in active if g["remaining"] and g["target_date"] > "2026-01-15")
    assert {g["status"] for g in bud.ok("list_goals", status="completed")} == {"completed"}
    assert "status must be one of" in bud.error("list_goals", status="paused")


def test_create_goal(bud: LiveServer) -> None:
    out = bud.ok("create_goal", name="Ski trip", target=1500, target_date="2026-06-30")
    assert (out["saved"], out["remaining"], out["status"], out["needed_per_month"]) == (0, 1500, "active", 250)
    assert one(bud, "SELECT name, target_cents, target_date FROM goals WHERE id = ?", out["goal_id"]) == (
        "Ski trip",
        150000,
        "2026-06-30",
    )
    state = dump(bud)
    assert out["goal_id"] in bud.error("create_goal", name="ski TRIP", target=10, target_date="2026-06-30")
    assert "in the future" in bud.error("create_goal", name="Late", target=10, target_date="2026-01-15")
    assert "greater than 0" in bud.error("create_goal", name="Zero", target=0, target_date="2026-06-30")
    assert dump(bud) == state


def test_contribute_to_goal(bud: LiveServer) -> None:
    goal, target, saved = one(
        bud,
        "SELECT id, target_cents, saved_cents FROM goals WHERE status = 'active' AND target_cents - saved_cents > 10000 ORDER BY id",
    )
    before = balance(bud, "ACC-1002")
    out = bud.ok("contribute_to_goal", goal_id=goal, account_id="ACC-1002", amount=50)
    assert (out["saved"], out["account_balance"]) == ((saved + 5000) / 100, (before - 5000) / 100)
    assert one(
        bud, "SELECT goal_id, account_id, amount_cents, made_on FROM contributions WHERE id = ?", out["contribution_id"]
    ) == (goal, "ACC-1002", 5000, "2026-01-15")
    near, left = one(
        bud,
        "SELECT id, target_cents - saved_cents FROM goals WHERE status = 'active' AND saved_cents * 10 > target_cents * 9 ORDER BY id",
    )
    done = bud.ok("contribute_to_goal", goal_id=near, account_id="ACC-1002", amount=left / 100)
    assert (done["status"], done["remaining"]) == ("completed", 0)


def test_contribute_errors_change_nothing(bud: LiveServer) -> None:
    state = dump(bud)
    goal, left = one(bud, "SELECT id, target_cents - saved_cents FROM goals WHERE status = 'active' ORDER BY id")
    err = bud.error("contribute_to_goal", goal_id=goal, account_id="ACC-1002", amount=(left + 100) / 100)
    assert f"needs only ${left / 100:,.2f} more" in err
    low = balance(bud, "ACC-1007")
    assert "contribute at most that" in bud.error(
        "contribute_to_goal", goal_id=goal, account_id="ACC-1007", amount=(low + 100) / 100
    )
    assert "credit card" in bud.error("contribute_to_goal", goal_id=goal, account_id="ACC-1003", amount=5)
    completed = scalar(bud, "SELECT id FROM goals WHERE status = 'completed' ORDER BY id")
    assert "already completed" in bud.error("contribute_to_goal", goal_id=completed, account_id="ACC-1002", amount=5)
    assert "list_goals" in bud.error("contribute_to_goal", goal_id="GOL-1", account_id="ACC-1002", amount=5)
    assert dump(bud) == state
