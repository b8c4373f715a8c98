"""Email tools that write mail: drafts (create, edit, attach, send), new messages, replies and forwards."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.email.models import NOW, Attachment, Draft, Mailbox, Message, content_size
from gym_mcp.servers.email.tools.common import (
    check_quota,
    check_recipient_count,
    draft_view,
    human_size,
    kit,
    load_draft,
    load_mailbox,
    load_message,
    load_thread,
    message_detail,
    parse_addresses,
    record_sent,
    split_addresses,
)
from gym_mcp.servers.kit import ToolError, check_between, check_length, next_id

MAX_BODY = 20_000
"""Most characters a message body may have."""

MAX_ATTACHMENT_KB = 25 * 1024
"""Largest single attachment, in KB (25 MB)."""

MIME_TYPES = {
    ".pdf": "application/pdf",
    ".doc": "application/msword",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".xls": "application/vnd.ms-excel",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".ppt": "application/vnd.ms-powerpoint",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".csv": "text/csv",
    ".txt": "text/plain",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".zip": "application/zip",
    ".ics": "text/calendar",
}
"""The type an attachment gets from its file extension when none is given."""

TO_SAMPLES = (
    ["m.garcia@contoso.example"],
    ["accounts@fabrikam.example"],
    ["j.lee@globex.example", "support@initech.example"],
    ["travel@tailspin.example"],
    ["k.okafor@litware.example"],
    ["events@wingtip.example", "claims@adatum.example"],
)
CC_SAMPLES = (["assistant@contoso.example"], ["finance@fabrikam.example"], ["team@globex.example"])
SUBJECT_SAMPLES = (
    "Meeting notes",
    "Updated proposal",
    "Invoice question",
    "Project timeline",
    "Welcome aboard",
    "Schedule for next week",
    "Contract draft",
)
BODY_SAMPLES = (
    "Hi, please see the notes below and let me know what you think.",
    "Hello, here is the updated proposal we discussed.",
    "Could you check the amount on the last invoice? Thanks.",
    "Attached is the latest timeline; the launch moves by one week.",
    "Thanks for the quick turnaround!",
    "Can we meet on Tuesday at 10:00 to go through it?",
)


def _body(text: str, field: str = "body") -> str:
    text = text.strip()
    if not text:
        raise ToolError(f"{field} cannot be empty; write the text of the message, e.g. 'Thanks, see you then.'")
    if len(text) > MAX_BODY:
        raise ToolError(f"{field} must be at most {MAX_BODY} characters, got {len(text)}")
    return text


def _subject(text: str) -> str:
    return check_length(" ".join(text.split()), "subject", 1, 200, ", e.g. 'Meeting notes'")


def _reply_subject(subject: str) -> str:
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


def _editable(draft: Draft) -> None:
    if draft.status == "sent":
        raise ToolError(
            f"Draft {draft.id} was already sent as message {draft.sent_message_id}; a sent message cannot be edited. "
            "Start a new draft with create_draft (or forward_message / reply_to_message the sent one)."
        )


@kit.tool(write=False, intent="List the drafts of mailbox {mailbox_id}")
def list_drafts(db: Session, mailbox_id: str, include_sent: bool = False) -> list[dict[str, Any]]:
    """List a mailbox's drafts, most recently edited first, with recipients, subject and attachments.

    Sent drafts (status "sent", with the sent_message_id) are left out unless include_sent is true.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id, e.g. "MBX-1001".
        include_sent: Also list drafts that were already sent.
    """
    box = load_mailbox(db, mailbox_id)
    stmt = select(Draft).where(Draft.mailbox_id == box.id)
    if not include_sent:
        stmt = stmt.where(Draft.status == "draft")
    return [draft_view(db, d) for d in db.scalars(stmt.order_by(Draft.updated_at.desc(), Draft.id.desc()))]


@kit.tool(
    write=True,
    intent=(
        "Start a draft in mailbox {mailbox_id} with the subject '{subject}' and the text '{body}'"
        "[ addressed to {to}][ with {cc} in copy]"
    ),
    samples={"subject": SUBJECT_SAMPLES, "body": BODY_SAMPLES, "to": TO_SAMPLES, "cc": CC_SAMPLES},
)
def create_draft(
    db: Session,
    mailbox_id: str,
    subject: str,
    body: str,
    to: list[str] | None = None,
    cc: list[str] | None = None,
) -> dict[str, Any]:
    """Start a draft (an unsent message) in a mailbox; edit it with update_draft, send it with send_draft.

    Recipients may be left out for now, but send_draft refuses a draft without any. The draft
    counts against the mailbox's quota.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id of the sender, e.g. "MBX-1001".
        subject: Subject line, 1 to 200 characters, e.g. "Meeting notes".
        body: The text, e.g. "Hi Ana, here are the notes from today."
        to: Recipient email addresses, e.g. ["ana.lopez@contoso.example"].
        cc: Addresses to copy, e.g. ["team@contoso.example"].
    """
    box = load_mailbox(db, mailbox_id)
    subject, body = _subject(subject), _body(body)
    to_list, cc_list = parse_addresses(to, "to"), parse_addresses(cc, "cc")
    to_text, cc_text = ", ".join(to_list), ", ".join(cc_list)
    size = content_size(subject, body, to_text, cc_text)
    check_quota(db, box, size, "the draft")
    draft = Draft(
        id=next_id(db, Draft.id, "DRF"),
        mailbox_id=box.id,
        to_addrs=to_text,
        cc_addrs=cc_text,
        subject=subject,
        body=body,
        status="draft",
        size_bytes=size,
        updated_at=NOW,
    )
    db.add(draft)
    db.flush()
    return draft_view(db, draft)


@kit.tool(
    write=True,
    intent=(
        "Update draft {draft_id}[ so it goes to {to}][ with {cc} in copy][, with the subject '{subject}']"
        "[, with the text '{body}']"
    ),
    samples={"subject": SUBJECT_SAMPLES, "body": BODY_SAMPLES, "to": TO_SAMPLES, "cc": CC_SAMPLES},
)
def update_draft(
    db: Session,
    draft_id: str,
    to: list[str] | None = None,
    cc: list[str] | None = None,
    subject: str | None = None,
    body: str | None = None,
) -> dict[str, Any]:
    """Edit an unsent draft: replace its recipients, copy list, subject or text (only the fields given).

    A draft that was already sent cannot be edited. Pass at least one field.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        draft_id: Draft id, e.g. "DRF-1001".
        to: New recipient addresses (replaces the old ones), e.g. ["ana.lopez@contoso.example"].
        cc: New addresses to copy (replaces the old ones); [] clears them.
        subject: New subject line, 1 to 200 characters.
        body: New text (replaces the old text).
    """
    draft = load_draft(db, draft_id)
    _editable(draft)
    if to is None and cc is None and subject is None and body is None:
        raise ToolError("Nothing to change: pass at least one of to, cc, subject or body.")
    if to is not None:
        draft.to_addrs = ", ".join(parse_addresses(to, "to"))
    if cc is not None:
        draft.cc_addrs = ", ".join(parse_addresses(cc, "cc"))
    if subject is not None:
        draft.subject = _subject(subject)
    if body is not None:
        draft.body = _body(body)
    size = content_size(draft.subject, draft.body, draft.to_addrs, draft.cc_addrs)
    check_quota(db, load_mailbox(db, draft.mailbox_id), size - draft.size_bytes, "the edited draft")
    draft.size_bytes = size
    draft.updated_at = NOW
    return draft_view(db, draft)


@kit.tool(
    write=True,
    intent="Attach the file '{filename}' of {size_kb} KB to draft {draft_id}[ as {mime_type}]",
    samples={
        "filename": ("report.pdf", "budget.xlsx", "photo.jpg", "slides.pptx", "contract.docx", "data.csv"),
        "size_kb": (45, 120, 480, 950, 2048, 6000),
        "mime_type": ("application/pdf", "image/png", "text/plain"),
    },
)
def add_attachment(
    db: Session, draft_id: str, filename: str, size_kb: int, mime_type: str | None = None
) -> dict[str, Any]:
    """Attach a file to an unsent draft (metadata only: name, size and type).

    The file counts against the mailbox's quota at once; a file that would exceed it is refused
    with the free space. Files are at most 25 MB (25600 KB).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        draft_id: Draft id, e.g. "DRF-1001".
        filename: File name with its extension, e.g. "report.pdf".
        size_kb: File size in kilobytes, 1 to 25600, e.g. 480.
        mime_type: MIME type, e.g. "application/pdf"; omit it to take it from the extension.
    """
    draft = load_draft(db, draft_id)
    _editable(draft)
    name = check_length(filename.strip(), "filename", 1, 120, ", e.g. 'report.pdf'")
    if "/" in name or "\\" in name:
        raise ToolError("filename must be a bare file name without folders, e.g. 'report.pdf'")
    check_between(size_kb, 1, MAX_ATTACHMENT_KB, "size_kb")
    suffix = PurePosixPath(name).suffix.lower()
    kind = (mime_type or "").strip().lower() or MIME_TYPES.get(suffix, "application/octet-stream")
    if "/" not in kind:
        raise ToolError(f"mime_type must look like 'application/pdf', got {mime_type!r}")
    size = size_kb * 1024
    check_quota(db, load_mailbox(db, draft.mailbox_id), size, f"the attachment {name}")
    att = Attachment(
        id=next_id(db, Attachment.id, "ATT"), draft_id=draft.id, filename=name, mime_type=kind, size_bytes=size
    )
    db.add(att)
    draft.updated_at = NOW
    db.flush()
    return {
        "attachment_id": att.id,
        "draft_id": draft.id,
        "filename": name,
        "mime_type": kind,
        "size": human_size(size),
    }


@kit.tool(write=True, intent="Send draft {draft_id}")
def send_draft(db: Session, draft_id: str) -> dict[str, Any]:
    """Send a draft: it becomes a message in the Sent folder (with its attachments) and can no longer be edited.

    A draft made as a reply (in_reply_to) joins the original message's thread. The draft needs
    at least one recipient: add them with update_draft first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        draft_id: Draft id, e.g. "DRF-1001".
    """
    draft = load_draft(db, draft_id)
    if draft.status == "sent":
        raise ToolError(f"Draft {draft.id} was already sent as message {draft.sent_message_id}; nothing to send.")
    to, cc = split_addresses(draft.to_addrs), split_addresses(draft.cc_addrs)
    if not to:
        raise ToolError(
            f"Draft {draft.id} has no recipients; a message needs at least one. Add them with update_draft "
            "(to=[...]), then send it."
        )
    check_recipient_count(to, cc)
    box = load_mailbox(db, draft.mailbox_id)
    original = db.get(Message, draft.in_reply_to) if draft.in_reply_to else None
    thread = load_thread(db, original.thread_id) if original is not None and original.mailbox_id == box.id else None
    msg = record_sent(
        db,
        box,
        to=to,
        cc=cc,
        subject=draft.subject,
        body=draft.body,
        thread=thread,
        in_reply_to=draft.in_reply_to if thread is not None else None,
    )
    for att in db.scalars(select(Attachment).where(Attachment.draft_id == draft.id)):
        att.draft_id = None
        att.message_id = msg.id
    draft.status = "sent"
    draft.sent_message_id = msg.id
    draft.updated_at = NOW
    db.flush()
    return {"draft_id": draft.id, "status": "sent", "message": message_detail(db, msg)}


@kit.tool(
    write=True,
    intent=(
        "Send an email from mailbox {mailbox_id} to {to} with the subject '{subject}' saying '{body}'"
        "[ with {cc} in copy]"
    ),
    samples={"subject": SUBJECT_SAMPLES, "body": BODY_SAMPLES, "to": TO_SAMPLES, "cc": CC_SAMPLES},
)
def send_message(
    db: Session, mailbox_id: str, to: list[str], subject: str, body: str, cc: list[str] | None = None
) -> dict[str, Any]:
    """Write and send a new message at once (a new thread); it is stored in the Sent folder.

    To write it in steps or attach files, use create_draft, add_attachment and send_draft instead.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        mailbox_id: Mailbox id of the sender, e.g. "MBX-1001".
        to: Recipient email addresses, at least one, e.g. ["ana.lopez@contoso.example"].
        subject: Subject line, 1 to 200 characters, e.g. "Meeting notes".
        body: The text, e.g. "Hi Ana, here are the notes from today."
        cc: Addresses to copy, e.g. ["team@contoso.example"].
    """
    box = load_mailbox(db, mailbox_id)
    to_list, cc_list = parse_addresses(to, "to"), parse_addresses(cc, "cc")
    check_recipient_count(to_list, cc_list)
    subject, body = _subject(subject), _body(body)
    size = content_size(subject, body, ", ".join(to_list), ", ".join(cc_list))
    check_quota(db, box, size, "the message")
    return message_detail(db, record_sent(db, box, to=to_list, cc=cc_list, subject=subject, body=body))


def _reply_recipients(box: Mailbox, msg: Message, reply_all: bool) -> tuple[list[str], list[str]]:
    """Who a reply goes to: the original sender (or, replying to one's own mail, its recipients)."""
    mine = msg.direction == "sent"
    to = [a for a in split_addresses(msg.to_addrs) if a != box.address] if mine else [msg.sender]
    cc: list[str] = []
    if reply_all:
        for address in split_addresses(msg.to_addrs) + split_addresses(msg.cc_addrs):
            if address != box.address and address not in to and address not in cc:
                cc.append(address)
    return to, cc


@kit.tool(
    write=True,
    intent="Reply to message {message_id} saying '{body}'[ (reply to all: {reply_all})]",
    samples={"body": BODY_SAMPLES},
)
def reply_to_message(db: Session, message_id: str, body: str, reply_all: bool = False) -> dict[str, Any]:
    """Reply to a message right away: same thread, "Re:" subject, sent to the original sender.

    Replying to a message the mailbox itself sent goes to that message's recipients. With
    reply_all the other recipients are copied too. The reply is stored in Sent.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: The message to answer, e.g. "MSG-1001".
        body: The reply's text, e.g. "Thanks, that works for me."
        reply_all: Also copy everyone else who received the original.
    """
    msg = load_message(db, message_id)
    box = load_mailbox(db, msg.mailbox_id)
    body = _body(body)
    to, cc = _reply_recipients(box, msg, reply_all)
    if not to:
        raise ToolError(f"Message {msg.id} has no one to reply to; use send_message with explicit recipients.")
    subject = _reply_subject(msg.subject)
    check_quota(db, box, content_size(subject, body, ", ".join(to), ", ".join(cc)), "the reply")
    reply = record_sent(
        db, box, to=to, cc=cc, subject=subject, body=body, thread=load_thread(db, msg.thread_id), in_reply_to=msg.id
    )
    return message_detail(db, reply)


@kit.tool(
    write=True,
    intent="Forward message {message_id} to {to}[ with the note '{note}']",
    samples={"to": TO_SAMPLES, "note": ("FYI", "Can you handle this one?", "See below.", "For your records.")},
)
def forward_message(db: Session, message_id: str, to: list[str], note: str | None = None) -> dict[str, Any]:
    """Forward a message with its attachments to other addresses, as a new "Fwd:" thread stored in Sent.

    The copies of the attachments count against the quota: a forward that would exceed it is
    refused with the free space.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        message_id: The message to forward, e.g. "MSG-1001".
        to: Recipient email addresses, at least one, e.g. ["ana.lopez@contoso.example"].
        note: A line to put above the forwarded text, e.g. "FYI".
    """
    msg = load_message(db, message_id)
    box = load_mailbox(db, msg.mailbox_id)
    to_list = parse_addresses(to, "to")
    check_recipient_count(to_list, [])
    subject = msg.subject if msg.subject.lower().startswith("fwd:") else f"Fwd: {msg.subject}"
    quoted = (
        "---------- Forwarded message ----------\n"
        f"From: {msg.sender_name} <{msg.sender}>\nDate: {msg.sent_at.isoformat(timespec='minutes')}\n"
        f"Subject: {msg.subject}\n\n{msg.body}"
    )
    body = f"{note.strip()}\n\n{quoted}" if note and note.strip() else quoted
    files = list(db.scalars(select(Attachment).where(Attachment.message_id == msg.id).order_by(Attachment.id)))
    size = content_size(subject, body, ", ".join(to_list)) + sum(a.size_bytes for a in files)
    check_quota(db, box, size, "the forward" + (" with its attachments" if files else ""))
    sent = record_sent(db, box, to=to_list, cc=[], subject=subject, body=body, forwarded_from=msg.id)
    for att in files:
        db.add(
            Attachment(
                id=next_id(db, Attachment.id, "ATT"),
                message_id=sent.id,
                filename=att.filename,
                mime_type=att.mime_type,
                size_bytes=att.size_bytes,
            )
        )
        db.flush()
    return message_detail(db, sent)
