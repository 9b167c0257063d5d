"""The SQLite file of a live session: a ``meta`` row, a ``head`` row and three append-only journals.

Layout (schema version :data:`SCHEMA_VERSION`)::

    meta          (format, version, created JSON, digest)         one row
    head          (seq, digest)                                   one row: where the journal ends
    pulls         (seq, id, arms JSON, count, asked_at, digest)   one row per handed-out pull
    observations  (seq, pull, reward JSON, recorded_at, digest)   one row per recorded reward
    abandons      (seq, pull, abandoned_at, digest)               one row per pull given back unanswered

``seq`` numbers the events of the three journals together (1, 2, 3, ...), so the order in which
pulls were asked, rewards told and pulls abandoned is known exactly: the algorithm's state is
rebuilt by replaying the events in that order. ``digest`` chains every row to the one before it
(SHA-256 of the previous digest and the row's content), so a row edited by hand is found
even when the edit is a plausible number. The chain starts at the ``meta`` row: its digest
covers the creation parameters (epsilon, delta, reward range, seed, workers, prior, ...),
so editing them breaks the meta digest and every journal digest after it. A hash chain
cannot see its own end cut off, so ``head`` holds the last event's ``seq`` and digest,
updated in the same transaction as every append: a journal that does not end exactly
there is refused. (The digests carry no secret: they catch edits, cuts and damage, not a
forger who recomputes every digest with this code; the replay still refuses a forged
journal the algorithm would not have produced.) The journal is the record a saved run holds too
(:mod:`fullbandit.core.journal`).

A fifth table, ``checkpoints (seq, digest, code, state, binding)``, holds at most one row: a cache
of the algorithm's working state after event ``seq`` (:mod:`fullbandit.sessions.checkpoint`), so an
open replays only the events after it. It is created by the first checkpoint and needs no new
schema version: a reader that does not know it ignores it and replays the journal, and events
appended after it leave it a valid starting point. ``binding`` chains it to the meta row and to
its event's digest; one that does not match, or that other code wrote, is ignored.

Version 3 added ``abandons``. A version 2 file (written by the previous release) opens and works
as it is: its journal is read without the table, which is created, in the transaction of the
first abandon, only when a pull is abandoned (its meta row keeps version 2: the meta digest
covers the version and the first event is chained to it). A previous release refuses such a
file rather than misread it (the head lies past the events it can see). Version 2 added the meta
digest and the head and dropped the snapshot cache; version 1 files are refused, not migrated
(no version 1 stores were in use outside development).

The digests are SHA-256 over ``json.dumps([previous digest, kind, *fields], separators=(",", ":"))``;
:func:`chain` writes the same bytes without ``json.dumps``'s per-call set-up (opening a store
hashes every row, so this is most of what an open costs besides the replay).

Every connection runs in WAL mode with ``synchronous=FULL``: a transaction that returned
is on disk, and a kill at any point leaves the last committed state.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import NamedTuple

from fullbandit.util.state import StateError

FORMAT = "fullbandit-session"
SCHEMA_VERSION = 3
#: The schema versions this fullbandit opens (version 2: no ``abandons`` table until the first abandon).
READABLE_VERSIONS = (2, 3)
#: How long a writer waits for another process's write lock before giving up (ms).
BUSY_TIMEOUT_MS = 60_000
#: The root of the chain: the meta row's digest is chained to it.
GENESIS = "0" * 64
TABLES = ("meta", "head", "pulls", "observations", "abandons")
#: The tables a version 2 store holds (``abandons`` is created there by its first abandon).
TABLES_V2 = ("meta", "head", "pulls", "observations")

# Also run alone, in the transaction of a version 2 store's first abandon.
_ABANDONS = """CREATE TABLE abandons (seq INTEGER NOT NULL UNIQUE, pull INTEGER NOT NULL UNIQUE REFERENCES pulls(id),
                       abandoned_at REAL NOT NULL, digest TEXT NOT NULL) STRICT"""
_SCHEMA = """
CREATE TABLE meta (format TEXT NOT NULL, version INTEGER NOT NULL, created TEXT NOT NULL, digest TEXT NOT NULL) STRICT;
CREATE TABLE head (seq INTEGER NOT NULL, digest TEXT NOT NULL) STRICT;
CREATE TABLE pulls (seq INTEGER NOT NULL UNIQUE, id INTEGER PRIMARY KEY, arms TEXT NOT NULL,
                    count INTEGER NOT NULL, asked_at REAL NOT NULL, digest TEXT NOT NULL) STRICT;
CREATE TABLE observations (seq INTEGER NOT NULL UNIQUE, pull INTEGER NOT NULL UNIQUE REFERENCES pulls(id),
                           reward TEXT NOT NULL, recorded_at REAL NOT NULL, digest TEXT NOT NULL) STRICT;
""" + _ABANDONS + ";\n"


#: The kinds of journal events (:attr:`Event.kind`), as the digests name them.
PULL, OBSERVATION, ABANDON = "pull", "observation", "abandon"


class Event(NamedTuple):
    """One journal row: a pull handed out, a reward recorded, or a pull abandoned (:attr:`kind`).

    ``arms`` and ``count`` are those of a pull (``None`` otherwise), ``reward`` that of an
    observation. (A named tuple: an open builds one per row, and a class instance costs more.)
    """

    seq: int
    pull: int
    arms: str | None
    count: int | None  # type: ignore[assignment]  # the pull's count; shadows tuple.count, unused here
    reward: str | None
    at: float
    digest: str
    kind: str = PULL

    @property
    def is_pull(self) -> bool:
        return self.kind == PULL

    @property
    def is_abandon(self) -> bool:
        return self.kind == ABANDON


# Exactly json.dumps(value, separators=(",", ":")) for any value (json.dumps builds this encoder on every call).
_ENCODER = json.JSONEncoder(separators=(",", ":"))
_sha256 = hashlib.sha256
_escape = encode_basestring_ascii  # json.dumps's writing of a str (its C implementation)


def _json(value) -> str:
    """``json.dumps(value, separators=(",", ":"))``, written directly for the fields of a row.

    The same functions ``json.dumps`` applies: the ASCII escaping of strings (its C
    implementation), ``int.__repr__``, ``float.__repr__`` for finite floats; anything else
    (non-finite floats, booleans, subclasses, ...) goes through the encoder itself.
    """
    kind = type(value)
    if kind is str:
        return _escape(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    return _ENCODER.encode(value)


def chain(previous: str, *fields) -> str:
    """The digest of a row: SHA-256 over the previous row's digest and this row's fields.

    That of the text ``json.dumps([previous, *fields], separators=(",", ":"))``, written
    without ``json.dumps`` (the same bytes: ``tests/test_session_store.py`` compares them).
    """
    text = "[" + ",".join([_json(previous), *[_json(field) for field in fields]]) + "]"
    return _sha256(text.encode()).hexdigest()


def meta_digest(format_name: str, version: int, created: str) -> str:
    """The digest of the meta row: the journal's first event is chained to it."""
    return chain(GENESIS, "meta", format_name, version, created)


# The rows' own digests, formatted in one step when the fields have the types the tables hold
# (an open computes one per row); any other value goes through chain, whose text is json.dumps's.
def pull_digest(previous: str, seq: int, pull: int, arms: str, count: int, at: float) -> str:
    if type(previous) is str and type(seq) is int and type(pull) is int and type(arms) is str \
            and type(count) is int and type(at) is float and math.isfinite(at):
        text = f'[{_escape(previous)},"pull",{seq},{pull},{_escape(arms)},{count},{at!r}]'
        return _sha256(text.encode()).hexdigest()
    return chain(previous, "pull", seq, pull, arms, count, at)


def observation_digest(previous: str, seq: int, pull: int, reward: str, at: float) -> str:
    if type(previous) is str and type(seq) is int and type(pull) is int and type(reward) is str \
            and type(at) is float and math.isfinite(at):
        text = f'[{_escape(previous)},"observation",{seq},{pull},{_escape(reward)},{at!r}]'
        return _sha256(text.encode()).hexdigest()
    return chain(previous, "observation", seq, pull, reward, at)


def abandon_digest(previous: str, seq: int, pull: int, at: float) -> str:
    if type(previous) is str and type(seq) is int and type(pull) is int and type(at) is float and math.isfinite(at):
        text = f'[{_escape(previous)},"abandon",{seq},{pull},{at!r}]'
        return _sha256(text.encode()).hexdigest()
    return chain(previous, "abandon", seq, pull, at)


def event_digest(previous: str, event: Event) -> str:
    """The digest ``event`` must carry when chained to ``previous``."""
    if event.kind == PULL:
        return pull_digest(previous, event.seq, event.pull, event.arms or "", event.count or 0, event.at)
    if event.kind == OBSERVATION:
        return observation_digest(previous, event.seq, event.pull, event.reward or "", event.at)
    return abandon_digest(previous, event.seq, event.pull, event.at)


def _configure(connection: sqlite3.Connection) -> None:
    # FULL: WAL commits are fsynced, so a record that returned survives a power cut too.
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


def create(path: Path, created: dict) -> None:
    """Create a new store at ``path`` (refused if the file exists) with its ``meta`` row."""
    if path.exists():
        raise StateError(f"session store {path} already exists: open it, or choose another path")
    if not path.resolve().parent.is_dir():
        raise StateError(f"cannot create session store {path}: folder {path.resolve().parent} does not exist")
    # Autocommit mode (isolation_level=None): transactions are begun explicitly below.
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        _configure(connection)
        connection.execute("BEGIN IMMEDIATE")
        # One statement at a time: executescript would commit the open transaction.
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                connection.execute(statement)
        text = json.dumps(created, allow_nan=False)
        digest = meta_digest(FORMAT, SCHEMA_VERSION, text)
        connection.execute("INSERT INTO meta VALUES (?, ?, ?, ?)", (FORMAT, SCHEMA_VERSION, text, digest))
        connection.execute("INSERT INTO head VALUES (0, ?)", (digest,))
        connection.execute("COMMIT")
    finally:
        connection.close()


def connect(path: Path) -> sqlite3.Connection:
    """Open an existing store for reading and writing, without creating a file that is missing.

    The connection may be used from any thread (``check_same_thread=False``): its user
    serialises the calls (:class:`fullbandit.sessions.Session` holds a lock around each).
    """
    if not path.is_file():
        raise StateError(f"session store {path} does not exist (create it with `fullbandit session start`)")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None,
                                     check_same_thread=False)
        _configure(connection)
    except sqlite3.DatabaseError as error:
        raise StateError(f"session store {path} cannot be opened: {error}") from None
    return connection


def check_file(connection: sqlite3.Connection, path: Path) -> dict:
    """Refuse a store that is damaged, of another format or version, or whose meta row was edited.

    Returns the creation parameters. The journal and its head are checked by :func:`events`.
    """
    try:
        problems = [row[0] for row in connection.execute("PRAGMA quick_check")]
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as error:
        raise StateError(f"session store {path} is damaged or not a SQLite file: {error}") from None
    if problems != ["ok"]:
        raise StateError(f"session store {path} is damaged (truncated or overwritten): {'; '.join(problems[:3])}")
    if "meta" not in tables:
        raise StateError(f"{path} is not a fullbandit session store: table meta missing")
    # SELECT *: the version decides the columns, so it is read before any column of this version.
    rows = connection.execute("SELECT * FROM meta").fetchall()
    if len(rows) != 1:
        raise StateError(f"session store {path}: table meta holds {len(rows)} rows, not 1")
    format_name, version = rows[0][:2]
    if format_name != FORMAT:
        raise StateError(f"{path}: meta format is {format_name!r}, not {FORMAT!r}")
    if version not in READABLE_VERSIONS:
        raise StateError(f"session store {path} has schema version {version!r}; this fullbandit reads "
                         f"versions {READABLE_VERSIONS[0]} to {READABLE_VERSIONS[-1]} only (older stores are not "
                         "converted: finish or export them with the fullbandit that wrote them)")
    missing = set(TABLES if version >= 3 else TABLES_V2) - tables
    if missing:
        raise StateError(f"{path} is not a fullbandit session store: table(s) {sorted(missing)} missing")
    created, digest = rows[0][2:]
    if not isinstance(created, str) or digest != meta_digest(format_name, version, created):
        raise StateError(f"session store {path}: meta 'created' (the creation parameters) was changed after the "
                         "store was created (its digest does not match)")
    try:
        parameters = json.loads(created)
    except json.JSONDecodeError as error:
        raise StateError(f"session store {path}: meta 'created' is not JSON ({error})") from None
    if not isinstance(parameters, dict):
        raise StateError(f"session store {path}: meta 'created' is not a JSON object")
    return parameters


def has_abandons(connection: sqlite3.Connection) -> bool:
    """Whether the store holds table ``abandons`` (a version 2 store has none before its first abandon).

    Asked in each transaction that reads the journal: another process may create it at any time.
    """
    return has_table(connection, "abandons")


def has_table(connection: sqlite3.Connection, name: str) -> bool:
    """Whether the store holds the table ``name`` (``abandons`` and ``checkpoints`` are created when first needed)."""
    return connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() \
        is not None


def _journal_rows(connection: sqlite3.Connection, after: int) -> list[tuple]:
    """The rows of the journal's events with ``seq > after``, in order (the seq index: O(rows read))."""
    query = ("SELECT seq, id, arms, count, NULL, asked_at, digest, 'pull' FROM pulls WHERE seq > :after "
             "UNION ALL SELECT seq, pull, NULL, NULL, reward, recorded_at, digest, 'observation' FROM observations "
             "WHERE seq > :after ")
    if has_abandons(connection):
        query += "UNION ALL SELECT seq, pull, NULL, NULL, NULL, abandoned_at, digest, 'abandon' FROM abandons " \
                 "WHERE seq > :after "
    return connection.execute(query + "ORDER BY 1", {"after": after}).fetchall()


def events(connection: sqlite3.Connection, path: Path, after: int = 0) -> list[Event]:
    """The journal's events with ``seq > after``, in order, their numbering and digests checked.

    Reads only those rows (and the digest of event ``after``, and the head): O(events read).
    """
    try:
        rows = _journal_rows(connection, after)
    except sqlite3.DatabaseError as error:
        raise StateError(f"session store {path}: the journal cannot be read: {error}") from None
    previous = digest_at(connection, path, after)
    quoted = _json(previous)  # the previous digest as its JSON text (as chain writes it)
    seq = after
    found = []
    # Every row of the query has Event's eight fields (Event._make would only check the length again).
    new = tuple.__new__
    sha256, escape, text_types = _sha256, _escape, _TEXT
    # repr of the last time seen: the pulls of one request share it (equal non-zero floats have one repr)
    last_at, at_text = 0.0, "0.0"
    for expected, row in enumerate(rows, start=after + 1):
        event = new(Event, row)
        number, pull, arms, count, reward, at, stored, kind = event
        if number != expected:
            raise StateError(f"session store {path}: journal event {expected} is missing (next is {number})")
        if type(reward) not in text_types or type(arms) not in text_types:
            raise StateError(f"session store {path}: journal event {number} has a field of the wrong type")
        # pull_digest's and observation_digest's text, written here for the types the tables hold
        # (at - at is 0.0 only for a finite float); anything else goes through event_digest.
        if type(at) is float and at - at == 0.0 and type(number) is int and type(pull) is int:
            if kind == PULL and type(arms) is str and type(count) is int:
                if at != last_at or not at:
                    last_at, at_text = at, float.__repr__(at)
                digest = sha256(f'[{quoted},"pull",{number},{pull},{escape(arms)},{count},{at_text}]'
                                .encode()).hexdigest()
            elif kind == OBSERVATION and type(reward) is str:
                digest = sha256(f'[{quoted},"observation",{number},{pull},{escape(reward)},{at!r}]'
                                .encode()).hexdigest()
            else:
                digest = event_digest(previous, event)
        else:
            digest = event_digest(previous, event)
        if digest != stored:
            chained = ", or the meta row (meta 'created') it is chained to," if event.seq == 1 else ""
            raise StateError(f"session store {path}: journal event {event.seq} ({event.kind} of pull {event.pull})"
                             f"{chained} was changed after it was recorded (its digest does not match)")
        found.append(event)
        seq, previous, quoted = number, digest, f'"{digest}"'  # a hex digest is its own JSON text, quoted
    _check_head(connection, path, seq, previous)
    return found


_TEXT = (str, type(None))


def read_head(connection: sqlite3.Connection, path: Path) -> tuple[int, str]:
    """``(seq, digest)`` of the last event as recorded by the appends (``(0, meta digest)``: none yet)."""
    rows = connection.execute("SELECT seq, digest FROM head").fetchall()
    if len(rows) != 1:
        raise StateError(f"session store {path}: table head holds {len(rows)} rows, not 1")
    return int(rows[0][0]), str(rows[0][1])


def _check_head(connection: sqlite3.Connection, path: Path, seq: int, digest: str) -> None:
    """Refuse a journal that does not end at its head: the last event ``seq`` with ``digest``."""
    head_seq, head_digest = read_head(connection, path)
    if seq < head_seq:
        raise StateError(f"session store {path}: the journal ends at event {seq} but table head records event "
                         f"{head_seq}: the end of the journal was cut (journal {_span(seq + 1, head_seq)} missing)")
    if seq > head_seq:
        raise StateError(f"session store {path}: journal {_span(head_seq + 1, seq)} added after the end that "
                         f"table head records (event {head_seq})")
    if digest != head_digest:
        what = "the meta row (meta 'created') or table head was changed" if seq == 0 else \
            f"journal event {seq} is not the last event table head records: the end of the journal was replaced"
        raise StateError(f"session store {path}: {what} (the digests do not match)")


def _span(first: int, last: int) -> str:
    return f"event {first}" if first == last else f"events {first} to {last}"


def digest_at(connection: sqlite3.Connection, path: Path, seq: int) -> str:
    """The stored digest of event ``seq`` (the meta row's for 0)."""
    if seq == 0:
        return str(connection.execute("SELECT digest FROM meta").fetchone()[0])
    query = "SELECT digest FROM pulls WHERE seq = :seq UNION ALL SELECT digest FROM observations WHERE seq = :seq"
    if has_abandons(connection):
        query += " UNION ALL SELECT digest FROM abandons WHERE seq = :seq"
    row = connection.execute(query, {"seq": seq}).fetchone()
    if row is None:
        raise StateError(f"session store {path}: journal event {seq} is missing")
    return row[0]


def last_seq(connection: sqlite3.Connection) -> int:
    """The largest ``seq`` of the journal's rows (0: none); index reads only."""
    abandons = ", coalesce((SELECT max(seq) FROM abandons), 0)" if has_abandons(connection) else ""
    row = connection.execute("SELECT max(coalesce((SELECT max(seq) FROM pulls), 0), "
                             f"coalesce((SELECT max(seq) FROM observations), 0){abandons})").fetchone()
    return int(row[0])


def append_pull(connection, seq: int, previous: str, pull: int, arms: str, count: int, at: float) -> str:
    digest = pull_digest(previous, seq, pull, arms, count, at)
    connection.execute("INSERT INTO pulls VALUES (?, ?, ?, ?, ?, ?)", (seq, pull, arms, count, at, digest))
    _advance_head(connection, seq, previous, digest)
    return digest


def append_observation(connection, seq: int, previous: str, pull: int, reward: str, at: float) -> str:
    digest = observation_digest(previous, seq, pull, reward, at)
    connection.execute("INSERT INTO observations VALUES (?, ?, ?, ?, ?)", (seq, pull, reward, at, digest))
    _advance_head(connection, seq, previous, digest)
    return digest


def append_abandon(connection, seq: int, previous: str, pull: int, at: float) -> str:
    """Journal the abandon of ``pull`` (in the caller's write transaction); creates the table in a version 2 store."""
    if not has_abandons(connection):
        connection.execute(_ABANDONS)  # rolled back with the transaction if the append is
    digest = abandon_digest(previous, seq, pull, at)
    connection.execute("INSERT INTO abandons VALUES (?, ?, ?, ?)", (seq, pull, at, digest))
    _advance_head(connection, seq, previous, digest)
    return digest


def _advance_head(connection, seq: int, previous: str, digest: str) -> None:
    # Only from the event this one is chained to: an append can never skip or rewrite the head.
    moved = connection.execute("UPDATE head SET seq = ?, digest = ? WHERE seq = ? AND digest = ?",
                               (seq, digest, seq - 1, previous)).rowcount
    if moved != 1:  # the replay under the same write lock checked the head: a bug, not a user's edit
        raise RuntimeError(f"journal event {seq} does not follow the head (table head); nothing appended")


# --- checkpoints (fullbandit.sessions.checkpoint): a cache of the algorithm after event seq ---------
_CHECKPOINTS = """CREATE TABLE IF NOT EXISTS checkpoints (seq INTEGER NOT NULL, digest TEXT NOT NULL,
                  code TEXT NOT NULL, state BLOB NOT NULL, binding TEXT NOT NULL) STRICT"""


class Checkpoint(NamedTuple):
    """A stored checkpoint: the algorithm's pickled ``state`` after event ``seq`` (whose digest is ``digest``),
    written by code of fingerprint ``code``; ``binding`` ties the four to the meta row (:func:`checkpoint_binding`)."""

    seq: int
    digest: str
    code: str
    state: bytes
    binding: str


def checkpoint_binding(meta: str, seq: int, digest: str, code: str, state: bytes) -> str:
    """The digest that ties a checkpoint's state to the journal event it follows and to the meta row ``meta``."""
    return chain(meta, "checkpoint", seq, digest, code, _sha256(state).hexdigest())


def read_checkpoint(connection: sqlite3.Connection) -> Checkpoint | None:
    """The stored checkpoint, or ``None`` (no table yet, no row, or a row of the wrong types)."""
    if not has_table(connection, "checkpoints"):
        return None
    row = connection.execute("SELECT seq, digest, code, state, binding FROM checkpoints "
                             "ORDER BY seq DESC LIMIT 1").fetchone()
    return None if row is None else Checkpoint(*row)


def write_checkpoint(connection, meta: str, seq: int, digest: str, code: str, state: bytes) -> None:
    """Replace the stored checkpoint (in the caller's write transaction); creates the table the first time.

    Older fullbandit releases ignore the table: they replay the journal, and the events they
    append leave the checkpoint a valid start for a later replay.
    """
    connection.execute(_CHECKPOINTS)
    connection.execute("DELETE FROM checkpoints")
    connection.execute("INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?)",
                       (seq, digest, code, state, checkpoint_binding(meta, seq, digest, code, state)))
