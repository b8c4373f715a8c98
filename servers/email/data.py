"""Deterministic seed data of the email server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the
same mailboxes, folders, conversations, drafts, labels, attachments and contacts, and a
different seed gives different ones. Every seed has some nearly full mailboxes, drafts without
recipients, unread mail and mail in the trash, so the error paths of the tools are reachable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.email.models import (
    DOMAIN,
    NOW,
    SYSTEM_FOLDERS,
    Attachment,
    Contact,
    Draft,
    Folder,
    Label,
    Mailbox,
    Message,
    MessageLabel,
    Thread,
    content_size,
)
from gym_mcp.servers.kit import NamePool

__all__ = ["CUSTOM_FOLDERS", "LABELS", "seed"]

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Priya", "Arjun", "Mei", "Wei", "Fatima", "Omar",
    "Sofia", "Diego", "Aisha", "Kwame", "Hana", "Kenji", "Ingrid", "Lars", "Camila", "Rafael", "Zoe", "Nora",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Lopez", "Wilson", "Anderson",
    "Thomas", "Taylor", "Moore", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Clark", "Lewis",
    "Walker", "Young", "King", "Wright", "Scott", "Nguyen", "Patel", "Kim", "Chen", "Okafor", "Mensah",
    "Nakamura", "Larsen", "Novak", "Rossi", "Schmidt", "Dubois",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
DEPARTMENTS = ("Sales", "Engineering", "Finance", "Marketing", "Operations", "People", "Legal", "Support")
COMPANIES = (
    ("Contoso Supplies", "contoso.example"),
    ("Fabrikam Logistics", "fabrikam.example"),
    ("Globex Partners", "globex.example"),
    ("Initech Software", "initech.example"),
    ("Tailspin Travel", "tailspin.example"),
    ("Litware Legal", "litware.example"),
    ("Adatum Insurance", "adatum.example"),
    ("Wingtip Events", "wingtip.example"),
)
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PERSONAL_DOMAINS = ("mail.example", "inbox.example", "post.example")

CUSTOM_FOLDERS = ("Projects", "Receipts", "Clients", "Travel", "Newsletters", "Hiring")
"""Custom folder names the seed gives some mailboxes."""

LABELS = (
    ("Work", "blue"),
    ("Finance", "green"),
    ("Travel", "orange"),
    ("Urgent", "red"),
    ("Follow-up", "yellow"),
    ("Personal", "purple"),
    ("Clients", "teal"),
    ("Newsletters", "gray"),
)
"""Label names (with colors) the seed gives the mailboxes, a few each."""


@dataclass(frozen=True)
class _Topic:
    """What a conversation is about: its subject, first body, files and where it tends to be filed."""

    subject: str
    body: str
    label: str
    folder: str
    files: tuple[tuple[str, str, int, int], ...] = field(default=())


TOPICS = (
    _Topic(
        "Invoice {n} for {month}",
        "Hi {first},\n\nPlease find attached invoice {n} for {month}. Payment is due within 30 days.\n\n"
        "Kind regards,\n{sender}",
        "Finance",
        "Receipts",
        (("invoice-{n}.pdf", "application/pdf", 80, 400),),
    ),
    _Topic(
        "Q1 planning: {project}",
        "Hi {first},\n\nCan we go through the Q1 plan for {project} this week? I drafted the milestones "
        "and would like your input on staffing.\n\nThanks,\n{sender}",
        "Work",
        "Projects",
        (("{project}-q1-plan.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", 40, 300),),
    ),
    _Topic(
        "Contract renewal with {company}",
        "Hello {first},\n\nOur agreement with {company} expires at the end of the month. I attached the "
        "redlined renewal; let me know if the payment terms work for you.\n\nBest,\n{sender}",
        "Clients",
        "Clients",
        (("renewal-{n}.docx", DOCX, 60, 500),),
    ),
    _Topic(
        "Flight confirmation {code}",
        "Dear {first},\n\nYour booking {code} is confirmed: departure {day} at 08:15. Your e-ticket is "
        "attached.\n\n{sender}",
        "Travel",
        "Travel",
        (("eticket-{code}.pdf", "application/pdf", 60, 250),),
    ),
    _Topic(
        "Team offsite on {day}",
        "Hi all,\n\nThe offsite is set for {day}. Please confirm whether you can make it and any dietary "
        "needs.\n\nCheers,\n{sender}",
        "Work",
        "Projects",
    ),
    _Topic(
        "Candidate interview: {person}",
        "Hi {first},\n\nCould you interview {person} for the open role next week? The CV is attached.\n\n"
        "Thanks,\n{sender}",
        "Follow-up",
        "Hiring",
        (("cv-{slug}.pdf", "application/pdf", 90, 700),),
    ),
    _Topic(
        "Weekly digest #{n}",
        "This week at {company}: product updates, two customer stories and upcoming webinars. Read the "
        "full digest online.\n\n{sender}",
        "Newsletters",
        "Newsletters",
    ),
    _Topic(
        "Expense report for {month}",
        "Hi {first},\n\nI submitted my expense report for {month}; receipts are attached. Could you approve "
        "it before Friday?\n\nThanks,\n{sender}",
        "Finance",
        "Receipts",
        (("receipts-{month}.zip", "application/zip", 300, 2500),),
    ),
    _Topic(
        "Customer escalation: ticket {code}",
        "Hi {first},\n\nTicket {code} from {company} was escalated: their sync has failed since Monday. "
        "Can you take a look today?\n\n{sender}",
        "Urgent",
        "Clients",
        (("screenshot-{code}.png", "image/png", 150, 900),),
    ),
    _Topic(
        "Design review: {project}",
        "Hi {first},\n\nThe mockups for {project} are attached. Comments welcome before Thursday's review."
        "\n\nBest,\n{sender}",
        "Work",
        "Projects",
        (("{project}-mockups.pdf", "application/pdf", 800, 4000), ("{project}-flow.png", "image/png", 200, 1200)),
    ),
    _Topic(
        "Dinner on {day}?",
        "Hey {first},\n\nAre you free for dinner on {day}? There is a new place near the office.\n\n{sender}",
        "Personal",
        "Inbox",
    ),
    _Topic(
        "Quarterly report draft",
        "Hi {first},\n\nHere is the draft of the quarterly report. The revenue section still needs final "
        "numbers.\n\n{sender}",
        "Work",
        "Projects",
        (("quarterly-report-draft.docx", DOCX, 120, 900),),
    ),
    _Topic(
        "Hotel booking {code}",
        "Dear {first},\n\nThank you for booking with us. Reservation {code}: check-in {day}, two nights.\n\n{sender}",
        "Travel",
        "Travel",
    ),
    _Topic(
        "Security training reminder",
        "Hi {first},\n\nA reminder that the annual security training is due by the end of the month. It "
        "takes about 30 minutes.\n\n{sender}",
        "Follow-up",
        "Inbox",
    ),
    _Topic(
        "Order {code} shipped",
        "Hello {first},\n\nGood news: order {code} has shipped and should arrive by {day}. Your receipt is "
        "attached.\n\n{sender}",
        "Finance",
        "Receipts",
        (("receipt-{code}.pdf", "application/pdf", 30, 120),),
    ),
)

REPLIES = (
    "Thanks, that works for me.",
    "Got it, I will take a look today and get back to you.",
    "Sounds good. Can we move it to the afternoon?",
    "Thanks for sending this over. I have a couple of questions, I will call you.",
    "Approved. Please go ahead.",
    "I can't make that day, how about the following week?",
    "Looks great, no changes from my side.",
    "Could you send the latest version? I only have last month's.",
    "Thanks! Adding it to the agenda for Monday.",
    "Received, I forwarded it to the team.",
)
DRAFT_SUBJECTS = (
    "Follow-up on our call",
    "Proposal for next quarter",
    "Notes from today's meeting",
    "Vacation handover",
    "Question about the invoice",
    "Updated timeline",
)
DRAFT_BODIES = (
    "Hi,\n\nThanks for your time today. As promised, here is a summary of what we agreed.",
    "Hi,\n\nI put together a first proposal; happy to walk you through it.",
    "Hi,\n\nQuick notes from the meeting: owners and dates below.",
    "Hi,\n\nI will be out next week; here is where things stand.",
    "Hi,\n\nCould you double-check the amount on the last invoice?",
)
PROJECTS = ("Atlas", "Beacon", "Cobalt", "Drift", "Ember", "Falcon", "Granite", "Harbor")
MONTHS = ("October", "November", "December", "January")

LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"
MB = 1024 * 1024


def _slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def _people(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """Distinct (first, last) name pairs."""
    taken: set[tuple[str, str]] = set()
    return [PEOPLE.draw_new(rng, taken) for _ in range(count)]


@dataclass
class _Party:
    """Someone mail is exchanged with: a hosted mailbox owner or an outside correspondent."""

    name: str
    email: str
    company: str


@dataclass
class _Ids:
    """Counters of the ids handed out so far."""

    counts: dict[str, int] = field(default_factory=dict)

    def next(self, prefix: str) -> str:
        n = self.counts.get(prefix, 0)
        self.counts[prefix] = n + 1
        return f"{prefix}-{1001 + n}"


class _Builder:
    """Builds every row in order; ids follow the order of creation."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ids = _Ids()
        self.mailboxes: list[Mailbox] = []
        self.folders: list[Folder] = []
        self.threads: list[Thread] = []
        self.messages: list[Message] = []
        self.drafts: list[Draft] = []
        self.labels: list[Label] = []
        self.links: list[MessageLabel] = []
        self.attachments: list[Attachment] = []
        self.contacts: list[Contact] = []
        self.used: dict[str, int] = {}
        self.staff: list[_Party] = []
        self.outside: list[_Party] = []

    # -- people ---------------------------------------------------------------------------------

    def people(self) -> tuple[list[_Party], list[_Party]]:
        rng = self.rng
        pairs = _people(rng, 14 + 30)
        staff = [_Party(f"{f} {last}", f"{f}.{last}@{DOMAIN}".lower(), "Northwind Labs") for f, last in pairs[:14]]
        outside = []
        for f, last in pairs[14:]:
            if rng.random() < 0.75:
                company, domain = rng.choice(COMPANIES)
            else:
                company, domain = "", rng.choice(PERSONAL_DOMAINS)
            outside.append(_Party(f"{f} {last}", f"{f[0]}.{last}@{domain}".lower(), company))
        return staff, outside

    # -- per mailbox ----------------------------------------------------------------------------

    def mailbox(self, party: _Party) -> tuple[Mailbox, dict[str, Folder], list[Label]]:
        rng = self.rng
        box = Mailbox(
            id=self.ids.next("MBX"),
            address=party.email,
            display_name=party.name,
            department=rng.choice(DEPARTMENTS),
            quota_bytes=rng.choice((50 * MB, 50 * MB, 100 * MB)),
            signature=f"{party.name}\nNorthwind Labs",
        )
        self.mailboxes.append(box)
        self.used[box.id] = 0
        folders: dict[str, Folder] = {}
        customs = rng.sample(CUSTOM_FOLDERS, rng.choice((0, 1, 2, 2, 3)))
        for name in (*SYSTEM_FOLDERS, *customs):
            folder = Folder(id=self.ids.next("FLD"), mailbox_id=box.id, name=name, system=name in SYSTEM_FOLDERS)
            folders[name] = folder
            self.folders.append(folder)
        labels = []
        for name, color in sorted(rng.sample(LABELS, rng.randint(3, 5))):
            label = Label(id=self.ids.next("LBL"), mailbox_id=box.id, name=name, color=color)
            labels.append(label)
            self.labels.append(label)
        return box, folders, labels

    def fill(self, me: _Party, other: _Party, n: int, when: datetime) -> dict[str, str]:
        """Values for a topic's placeholders; days mentioned fall after the first message."""
        rng = self.rng
        person = " ".join(PEOPLE.draw(rng))
        return {
            "n": str(n),
            "month": rng.choice(MONTHS),
            "project": rng.choice(PROJECTS),
            "company": other.company or rng.choice(COMPANIES)[0],
            "code": "".join(rng.choice(LETTERS) for _ in range(2)) + str(rng.randint(1000, 9999)),
            "day": (when + timedelta(days=rng.randint(3, 20))).strftime("%A %B %d").replace(" 0", " "),
            "person": person,
            "slug": _slug(person),
            "first": me.name.split()[0],
            "sender": other.name,
        }

    def message(
        self,
        box: Mailbox,
        thread: Thread,
        folder: Folder,
        *,
        incoming: bool,
        me: _Party,
        other: _Party,
        subject: str,
        body: str,
        when: datetime,
        read: bool,
        reply_to: Message | None,
    ) -> Message:
        sender, to = (other, me) if incoming else (me, other)
        cc = ""
        if self.rng.random() < 0.15 and incoming:
            cc = self.rng.choice(self.staff).email
            if cc in (me.email, other.email):
                cc = ""
        msg = Message(
            id=self.ids.next("MSG"),
            mailbox_id=box.id,
            folder_id=folder.id,
            thread_id=thread.id,
            direction="received" if incoming else "sent",
            sender=sender.email,
            sender_name=sender.name,
            to_addrs=to.email,
            cc_addrs=cc,
            subject=subject,
            body=body,
            sent_at=when,
            is_read=read or not incoming,
            size_bytes=content_size(subject, body, to.email, cc),
            in_reply_to=reply_to.id if reply_to else None,
        )
        self.messages.append(msg)
        self.used[box.id] += msg.size_bytes
        return msg

    def attach(self, msg: Message | None, draft: Draft | None, name: str, mime: str, size: int) -> Attachment:
        att = Attachment(
            id=self.ids.next("ATT"),
            message_id=msg.id if msg else None,
            draft_id=draft.id if draft else None,
            filename=name,
            mime_type=mime,
            size_bytes=size,
        )
        self.attachments.append(att)
        self.used[msg.mailbox_id if msg else draft.mailbox_id if draft else ""] += size
        return att

    def conversations(self, box: Mailbox, me: _Party, folders: dict[str, Folder], labels: list[Label]) -> list[_Party]:
        """A mailbox's threads; returns the people it corresponded with."""
        rng = self.rng
        partners = [p for p in self.staff if p.email != me.email] + self.outside
        count = rng.randint(9, 13)
        trash_threads = set(rng.sample(range(count), rng.choice((0, 1, 1, 2, 2))))
        by_name = {label.name: label for label in labels}
        met: list[_Party] = []
        for t in range(count):
            rng_topic = rng.choice(TOPICS)
            other = rng.choice(partners)
            if other not in met:
                met.append(other)
            when = NOW - timedelta(days=rng.randint(0, 55), hours=rng.randint(1, 10), minutes=rng.randint(0, 59))
            values = self.fill(me, other, rng.randint(2000, 9999), when)
            subject = rng_topic.subject.format(**values)
            thread = Thread(id=self.ids.next("THR"), mailbox_id=box.id, subject=subject)
            self.threads.append(thread)
            if t in trash_threads:
                place = folders["Trash"]
            else:
                roll = rng.random()
                custom = folders.get(rng_topic.folder)
                if custom is not None and not custom.system and roll < 0.5:
                    place = custom
                elif roll < 0.75:
                    place = folders["Inbox"]
                else:
                    place = folders["Archive"]
            length = rng.choices((1, 2, 3, 4), weights=(5, 4, 2, 1))[0]
            incoming = rng.random() < 0.85
            previous: Message | None = None
            for i in range(length):
                if when >= NOW:
                    break
                if i == 0:
                    body = rng_topic.body.format(**values)
                    subj = subject
                else:
                    body = f"{rng.choice(REPLIES)}\n\n{(other if incoming else me).name}"
                    subj = f"Re: {subject}"
                home = folders["Trash"] if place.name == "Trash" else folders["Sent"]
                folder = place if incoming else home
                age = (NOW - when).days
                unread = {"Inbox": 0.6 if age < 7 else 0.3 if age < 30 else 0.1}.get(place.name, 0.0)
                if not place.system:
                    unread = 0.2
                read = rng.random() >= unread
                msg = self.message(
                    box,
                    thread,
                    folder,
                    incoming=incoming,
                    me=me,
                    other=other,
                    subject=subj,
                    body=body,
                    when=when,
                    read=read,
                    reply_to=previous,
                )
                if i == 0 and rng_topic.files and rng.random() < 0.7:
                    for name, mime, low, high in rng_topic.files:
                        self.attach(msg, None, name.format(**values), mime, rng.randint(low, high) * 1024)
                if incoming and rng.random() < 0.35:
                    label = by_name.get(rng_topic.label) or rng.choice(labels)
                    self.links.append(MessageLabel(message_id=msg.id, label_id=label.id))
                previous = msg
                incoming = not incoming
                when += timedelta(hours=rng.randint(1, 30), minutes=rng.randint(0, 59))
        return met

    def address_book(self, box: Mailbox, me: _Party, met: list[_Party]) -> list[Contact]:
        rng = self.rng
        extra = [p for p in self.outside + self.staff if p not in met and p.email != me.email]
        chosen = met[: rng.randint(3, 6)] + rng.sample(extra, rng.randint(1, 3))
        out = []
        for party in chosen:
            contact = Contact(
                id=self.ids.next("CON"), mailbox_id=box.id, name=party.name, email=party.email, company=party.company
            )
            out.append(contact)
            self.contacts.append(contact)
        return out

    def drafts_of(self, box: Mailbox, contacts: list[Contact]) -> None:
        rng = self.rng
        for i in range(rng.randint(1, 3)):
            received = [m for m in self.messages if m.mailbox_id == box.id and m.direction == "received"]
            if i == 0 and received and rng.random() < 0.5:
                original = rng.choice(received)
                subject = original.subject if original.subject.startswith("Re: ") else f"Re: {original.subject}"
                to, body, reply = original.sender, rng.choice(REPLIES), original.id
            else:
                subject, body, reply = rng.choice(DRAFT_SUBJECTS), rng.choice(DRAFT_BODIES), None
                to = rng.choice(contacts).email if rng.random() < 0.75 else ""
            draft = Draft(
                id=self.ids.next("DRF"),
                mailbox_id=box.id,
                to_addrs=to,
                cc_addrs="",
                subject=subject,
                body=body,
                status="draft",
                size_bytes=content_size(subject, body, to),
                updated_at=NOW - timedelta(days=rng.randint(0, 6), hours=rng.randint(1, 8)),
                in_reply_to=reply,
            )
            self.drafts.append(draft)
            self.used[box.id] += draft.size_bytes
            if rng.random() < 0.3:
                self.attach(None, draft, "notes.pdf", "application/pdf", rng.randint(40, 300) * 1024)

    def fill_up(self, box: Mailbox, me: _Party) -> None:
        """Make a mailbox nearly full: a small quota and an archived backup that leaves 150-900 KB free."""
        rng = self.rng
        box.quota_bytes = 20 * MB
        free = rng.randint(150, 900) * 1024
        archive = next(f for f in self.folders if f.mailbox_id == box.id and f.name == "Archive")
        colleague = rng.choice([p for p in self.staff if p.email != me.email])
        subject = "Project files backup"
        thread = Thread(id=self.ids.next("THR"), mailbox_id=box.id, subject=subject)
        self.threads.append(thread)
        body = (
            f"Hi {me.name.split()[0]},\n\nAs discussed, here is the full export of the shared project folder "
            f"before the old drive is retired.\n\n{colleague.name}"
        )
        when = NOW - timedelta(days=rng.randint(10, 40), hours=rng.randint(1, 8))
        msg = self.message(
            box, thread, archive, incoming=True, me=me, other=colleague, subject=subject, body=body, when=when,
            read=True, reply_to=None,
        )  # fmt: skip
        self.attach(msg, None, "project-archive.zip", "application/zip", box.quota_bytes - self.used[box.id] - free)

    # -- all ------------------------------------------------------------------------------------

    def build(self) -> None:
        self.staff, self.outside = self.people()
        boxes = []
        for party in self.staff:
            box, folders, labels = self.mailbox(party)
            met = self.conversations(box, party, folders, labels)
            contacts = self.address_book(box, party, met)
            self.drafts_of(box, contacts)
            boxes.append(box)
        for i in sorted(self.rng.sample(range(len(boxes)), 3)):
            self.fill_up(boxes[i], self.staff[i])


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty email database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    b = _Builder(rng)
    b.build()
    for rows in (b.mailboxes, b.folders, b.threads, b.labels, b.contacts, b.messages, b.drafts):
        db.add_all(rows)
        db.flush()
    db.add_all(b.links)
    db.add_all(b.attachments)
    db.flush()
