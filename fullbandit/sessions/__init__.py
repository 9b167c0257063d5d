"""Live sessions: a team search whose pulls and rewards are journalled in SQLite (see :class:`Session`)."""

from fullbandit.sessions.session import RecordConflict, Session
from fullbandit.sessions.store import FORMAT, SCHEMA_VERSION

__all__ = ["FORMAT", "SCHEMA_VERSION", "RecordConflict", "Session"]
