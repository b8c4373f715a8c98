"""Email tools for labels: list and create a mailbox's labels, apply them to messages and remove them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.email.models import Label, MessageLabel
from gym_mcp.servers.email.tools.common import kit, label_by_name, load_mailbox, load_message
from gym_mcp.servers.kit import ToolError, check_length, next_id

LABEL_COLORS = ("blue", "green", "orange", "red", "yellow", "purple", "teal", "gray")
LABEL_SAMPLES = ("Work", "Finance", "Travel", "Urgent", "Follow-up", "Personal", "Clients")
MAX_LABELS = 30
"""Most labels one mailbox may have."""


@kit.tool(write=False, intent="List the labels of mailbox {mailbox_id}")
def list_labels(db: Session, mailbox_id: str) -> list[dict[str, Any]]:
    """List a mailbox's labels with their color and how many messages carry each.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
    """
    box = load_mailbox(db, mailbox_id)
    rows = db.execute(
        select(Label, func.count(MessageLabel.message_id))
        .outerjoin(MessageLabel, MessageLabel.label_id == Label.id)
        .where(Label.mailbox_id == box.id)
        .group_by(Label.id)
        .order_by(Label.name)
    )
    return [{"label_id": lb.id, "name": lb.name, "color": lb.color, "messages": n} for lb, n in rows]


@kit.tool(
    write=True,
    intent="Create a label '{label_name}' in mailbox {mailbox_id}[ colored {color}]",
    samples={
        "label_name": ("Urgent", "Follow-up", "Invoices", "Team", "Read later", "Waiting on reply", "Travel"),
        "color": LABEL_COLORS,
    },
)
def create_label(db: Session, mailbox_id: str, label_name: str, color: str = "gray") -> dict[str, Any]:
    """Create a label in a mailbox so it can be applied to messages (apply_label).

    Label names are unique per mailbox (case-insensitive).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
        label_name: The label's name, 1 to 40 characters, e.g. "Invoices".
        color: One of blue, green, orange, red, yellow, purple, teal or gray.
    """
    box = load_mailbox(db, mailbox_id)
    name = check_length(" ".join(label_name.split()), "label_name", 1, 40, ", e.g. 'Invoices'")
    shade = color.strip().lower()
    if shade not in LABEL_COLORS:
        raise ToolError(f"color must be one of {', '.join(LABEL_COLORS)}; got {color!r}")
    existing = db.scalar(select(Label).where(Label.mailbox_id == box.id, func.lower(Label.name) == name.lower()))
    if existing is not None:
        raise ToolError(
            f"Mailbox {box.id} already has the label {existing.name!r} ({existing.id}); apply it with apply_label."
        )
    count = db.scalar(select(func.count()).select_from(Label).where(Label.mailbox_id == box.id)) or 0
    if count >= MAX_LABELS:
        raise ToolError(f"Mailbox {box.id} already has {count} labels, the maximum is {MAX_LABELS}.")
    label = Label(id=next_id(db, Label.id, "LBL"), mailbox_id=box.id, name=name, color=shade)
    db.add(label)
    db.flush()
    return {"label_id": label.id, "mailbox_id": box.id, "name": label.name, "color": label.color}


@kit.tool(
    write=True,
    intent="Label message {message_id} as '{label}'",
    samples={"label": LABEL_SAMPLES},
)
def apply_label(db: Session, message_id: str, label: str) -> dict[str, Any]:
    """Apply an existing label of the message's mailbox to a message.

    The label must exist first: create_label makes it, list_labels shows the mailbox's labels.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-1001".
        label: The label's name or id, e.g. "Work" or "LBL-1002".
    """
    msg = load_message(db, message_id)
    tag = label_by_name(db, load_mailbox(db, msg.mailbox_id), label)
    if db.get(MessageLabel, (msg.id, tag.id)) is not None:
        raise ToolError(f"Message {msg.id} already has the label {tag.name!r}; nothing changed.")
    db.add(MessageLabel(message_id=msg.id, label_id=tag.id))
    db.flush()
    return {"message_id": msg.id, "labels": _names(db, msg.id)}


@kit.tool(
    write=True,
    intent="Remove the label '{label}' from message {message_id}",
    samples={"label": LABEL_SAMPLES},
)
def remove_label(db: Session, message_id: str, label: str) -> dict[str, Any]:
    """Remove a label from a message (the label itself stays in the mailbox).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: Message id, e.g. "MSG-1001".
        label: The label's name or id, e.g. "Work" or "LBL-1002".
    """
    msg = load_message(db, message_id)
    tag = label_by_name(db, load_mailbox(db, msg.mailbox_id), label)
    link = db.get(MessageLabel, (msg.id, tag.id))
    if link is None:
        have = ", ".join(_names(db, msg.id)) or "none"
        raise ToolError(f"Message {msg.id} does not have the label {tag.name!r}; its labels: {have}.")
    db.delete(link)
    db.flush()
    return {"message_id": msg.id, "labels": _names(db, msg.id)}


def _names(db: Session, message_id: str) -> list[str]:
    return list(
        db.scalars(
            select(Label.name)
            .join(MessageLabel, MessageLabel.label_id == Label.id)
            .where(MessageLabel.message_id == message_id)
            .order_by(Label.name)
        )
    )
