"""Video meeting tools for recordings: start and stop one in a live meeting (host only), list a host's recordings."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, next_id, pick
from gym_mcp.servers.video_meeting.models import Meeting, Recording
from gym_mcp.servers.video_meeting.tools.common import (
    check_host,
    check_live,
    in_progress,
    kit,
    load_meeting,
    load_user,
    log,
)


def _view(recording: Recording, meeting: Meeting) -> dict[str, Any]:
    """The fields of a recording a model needs."""
    return {
        "recording_id": recording.id,
        "meeting_id": meeting.id,
        "title": meeting.title,
        **pick(recording, "status", "started_by", "recorded_on"),
    }


@kit.tool(write=False, intent="List the recordings of meetings hosted by {host_id}")
def list_recordings(db: Session, host_id: str) -> list[dict[str, Any]]:
    """List the recordings of every meeting a user hosted, newest first (status recording or completed).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        host_id: User id of the host, e.g. "USR-1003".
    """
    host = load_user(db, host_id, "host_id")
    rows = db.execute(
        select(Recording, Meeting)
        .join(Meeting, Meeting.id == Recording.meeting_id)
        .where(Meeting.host_id == host.id)
        .order_by(Recording.recorded_on.desc(), Recording.id.desc())
    ).all()
    return [_view(r, m) for r, m in rows]


@kit.tool(write=True, intent="Start recording meeting {meeting_id} on behalf of {acting_user_id}")
def start_recording(db: Session, meeting_id: str, acting_user_id: str) -> dict[str, Any]:
    """Start recording a live meeting (host only); a meeting that has not started cannot be recorded.

    Only one recording runs at a time. Returns the new recording.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        acting_user_id: Who starts it: must be the meeting's host, e.g. "USR-1003".
    """
    meeting = load_meeting(db, meeting_id)
    host = check_host(db, meeting, acting_user_id, "record it")
    check_live(meeting, "record it")
    running = in_progress(db, meeting)
    if running is not None:
        raise ToolError(f"Meeting {meeting.id} is already being recorded ({running.id}); stop_recording ends it.")
    recording = Recording(
        id=next_id(db, Recording.id, "REC"),
        meeting_id=meeting.id,
        started_by=host.id,
        status="recording",
        recorded_on=kit.today,
    )
    db.add(recording)
    db.flush()
    log(db, meeting, host, "recording_started")
    return _view(recording, meeting)


@kit.tool(write=True, intent="Stop recording meeting {meeting_id} on behalf of {acting_user_id}")
def stop_recording(db: Session, meeting_id: str, acting_user_id: str) -> dict[str, Any]:
    """Stop the recording in progress of a live meeting (host only); it is kept as completed.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        meeting_id: Meeting id, e.g. "MTG-1001".
        acting_user_id: Who stops it: must be the meeting's host, e.g. "USR-1003".
    """
    meeting = load_meeting(db, meeting_id)
    host = check_host(db, meeting, acting_user_id, "stop its recording")
    recording = in_progress(db, meeting)
    if recording is None:
        raise ToolError(f"Meeting {meeting.id} is not being recorded ({meeting.status}); nothing to stop.")
    recording.status = "completed"
    log(db, meeting, host, "recording_stopped")
    return _view(recording, meeting)
