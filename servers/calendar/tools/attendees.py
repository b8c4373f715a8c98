"""Calendar tools for attendees: invite and remove people, answer an invitation."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from gym_mcp.servers.calendar.models import Invitation
from gym_mcp.servers.calendar.tools.common import (
    check_capacity,
    check_editable,
    check_person_free,
    event_to_change,
    headcount,
    iso_minute,
    kit,
    load_invitation,
    load_person,
)
from gym_mcp.servers.kit import ToolError, next_id

_RESPONSE_CHOICES = ("accepted", "declined", "tentative")


@kit.tool(write=True, intent="Invite {person_id} to event {event_id} on behalf of {acting_person_id}")
def invite_attendee(db: Session, event_id: str, acting_person_id: str, person_id: str) -> dict[str, Any]:
    """Invite one more person to an upcoming event (organizer only); the invitation starts "pending".

    Fails if the person is already invited or is the organizer, or the event's room would be
    over capacity. Returns the new invitation.

    Args:
        db: Database session (supplied by the server).
        event_id: The event, e.g. "EVT-1001".
        acting_person_id: Who invites; must be the organizer, e.g. "PER-1001".
        person_id: The person to invite, e.g. "PER-1002".
    """
    event = event_to_change(db, event_id, acting_person_id, "invite people to", "get new invitees")
    person = load_person(db, person_id)
    if person.id == event.organizer_id:
        raise ToolError(f"{person.id} is the organizer of {event.id} and attends already; no invitation needed.")
    existing = next((inv for inv in event.invitations if inv.person_id == person.id), None)
    if existing is not None:
        raise ToolError(
            f"{person.name} ({person.id}) is already invited to {event.id} ({existing.id}, response "
            f"{existing.response}); a person cannot be invited twice."
        )
    if event.room is not None:
        check_capacity(event.room, headcount(event) + 1)
    invitation = Invitation(id=next_id(db, Invitation.id, "INV"), person_id=person.id, response="pending")
    event.invitations.append(invitation)
    db.flush()
    return {
        "invitation_id": invitation.id,
        "event_id": event.id,
        "person_id": person.id,
        "name": person.name,
        "response": invitation.response,
    }


@kit.tool(
    write=True,
    intent="Remove {person_id} from event {event_id} on behalf of {acting_person_id}",
    confirm="always",
)
def remove_attendee(db: Session, event_id: str, acting_person_id: str, person_id: str) -> dict[str, Any]:
    """Withdraw a person's invitation to an upcoming event (organizer only).

    The invitation is deleted and no longer counts against the room's capacity.

    Args:
        db: Database session (supplied by the server).
        event_id: The event, e.g. "EVT-1001".
        acting_person_id: Who removes; must be the organizer, e.g. "PER-1001".
        person_id: The invitee to remove, e.g. "PER-1002".
    """
    event = event_to_change(db, event_id, acting_person_id, "remove attendees from", "change attendees")
    person = load_person(db, person_id)
    invitation = next((inv for inv in event.invitations if inv.person_id == person.id), None)
    if invitation is None:
        if person.id == event.organizer_id:
            raise ToolError(f"{person.id} is the organizer of {event.id}; to drop the event use cancel_event.")
        raise ToolError(f"{person.name} ({person.id}) is not invited to {event.id}; get_event lists its attendees.")
    event.invitations.remove(invitation)
    db.flush()
    return {"removed_invitation_id": invitation.id, "event_id": event.id, "person_id": person.id}


@kit.tool(
    write=True,
    intent="Mark invitation {invitation_id} as {response} on behalf of {person_id}",
    samples={"response": ("accepted", "declined", "tentative")},
)
def respond_to_invitation(db: Session, invitation_id: str, person_id: str, response: str) -> dict[str, Any]:
    """Answer an invitation as the invitee: accept, decline or tentatively accept.

    Accepting fails if the invitee is already busy then (the error names the conflicting event);
    decline that other event first or answer "tentative". Invitations to cancelled or past events
    cannot be answered. Returns the invitation with its new and previous response.

    Args:
        db: Database session (supplied by the server).
        invitation_id: The invitation, e.g. "INV-1001" (see list_invitations or get_event).
        person_id: The invitee answering, who must own the invitation, e.g. "PER-1002".
        response: "accepted", "declined" or "tentative".
    """
    invitation = load_invitation(db, invitation_id)
    person = load_person(db, person_id)
    if invitation.person_id != person.id:
        raise ToolError(
            f"{invitation.id} belongs to {invitation.person.name} ({invitation.person_id}); only the "
            f"invitee can answer it. Use list_invitations for {person.id}'s own invitations."
        )
    if response not in _RESPONSE_CHOICES:
        raise ToolError(f'response must be "accepted", "declined" or "tentative"; got {response!r}.')
    event = invitation.event
    if event.status == "cancelled":
        raise ToolError(f'{event.id} "{event.title}" was cancelled; its invitations can no longer be answered.')
    check_editable(event, "be answered")
    if response == "accepted":
        check_person_free(db, person, event.start, event.end, event.id)
    if invitation.response == "declined" and response != "declined" and event.room is not None:
        check_capacity(event.room, headcount(event) + 1)
    previous = invitation.response
    invitation.response = response
    return {
        "invitation_id": invitation.id,
        "event_id": event.id,
        "title": event.title,
        "start": iso_minute(event.start),
        "end": iso_minute(event.end),
        "response": response,
        "previous_response": previous,
    }
