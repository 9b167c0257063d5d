"""The campaigns a server keeps open: one :class:`Session` per store, opened once and shared by every request.

A :class:`Session` is thread-safe and brings its kept algorithm up to date incrementally
(writes by other processes included), so the server opens each store once, when it starts
(or at ``POST /start``), and a ``record`` then costs a tell and a commit, not a replay of the
journal. :class:`Campaigns` is the set a server serves:

* given stores (``fullbandit session serve A.db B.db``): each named by its file stem;
* a folder (``--folder DIR``): every ``*.db`` session store in it, and one another process
  creates there later is opened when first asked for (by name, or in the list);
* ``new``: with stores, each must not exist yet and ``POST /start`` creates it; with a folder,
  ``POST /campaigns/{name}/start`` creates ``DIR/{name}.db``.

A campaign's name is a safe file stem: :data:`NAME_RULE`. :meth:`Campaigns.close` closes every
session, once no request uses them any more (the server drains its requests first).

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> Session.start(folder / "pilot.db", algorithm="icb", n=4, k=2, noise_scale=0.2, seed=1).close()
>>> campaigns = Campaigns(folder=folder, new=True)
>>> [campaign.name for campaign in campaigns.list()]
['pilot']
>>> campaign = campaigns.start("main", {"algorithm": "icb", "n": 4, "k": 2, "parameters": {"noise_scale": 0.2}})
>>> (folder / "main.db").exists(), sorted(c.name for c in campaigns.list())
(True, ['main', 'pilot'])
>>> campaigns.get("../etc")
Traceback (most recent call last):
...
fullbandit.util.validation.InvalidParameterError: campaign name '../etc' is not allowed: a name is 1 to 64 letters, \
digits, '-' or '_'
>>> campaigns.close()                         # how many sessions it closed
2
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path

from fullbandit.core.algorithm import ProtocolError
from fullbandit.sessions.page import PageCache
from fullbandit.sessions.session import Session
from fullbandit.util.validation import InvalidParameterError

#: What a campaign name may hold (it is the store's file stem, and a part of a URL path).
NAME_RULE = "1 to 64 letters, digits, '-' or '_'"
NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The file suffix of a session store in a served folder.
SUFFIX = ".db"


class NoSuchCampaign(LookupError):
    """A campaign name this server does not serve (answered 404)."""


def check_name(name: str) -> str:
    """``name`` if it is a safe campaign name (:data:`NAME_RULE`); refused naming the allowed characters otherwise."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise InvalidParameterError(f"campaign name {name!r} is not allowed: a name is {NAME_RULE}")
    return name


class Campaign:
    """One store a server serves: its ``name``, ``path``, and the :class:`Session` kept open (``None``: not started)."""

    def __init__(self, name: str, path: Path, session: Session | None):
        self.name = name
        self.path = path
        self._session = session
        self._pages: PageCache | None = None
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return self._session is not None

    @property
    def session(self) -> Session:
        """The open session; refused (:class:`ProtocolError`, answered 409) before ``POST /start`` created it."""
        session = self._session
        if session is None:
            raise ProtocolError(f"campaign {self.name!r} has no session yet ({self.path} does not exist): "
                                "POST /start first")
        return session

    @property
    def pages(self) -> PageCache:
        """The page and plot of the open session (made on first use)."""
        with self._lock:
            if self._pages is None:
                self._pages = PageCache(self.session, self.name)
            return self._pages

    def attach(self, session: Session) -> None:
        with self._lock:
            self._session = session

    def close(self) -> None:
        with self._lock:
            session, self._session, self._pages = self._session, None, None
        if session is not None:
            session.close()


class Campaigns:
    """The campaigns one server serves: the given ``stores``, or every store in ``folder`` (see the module).

    Opens every existing store before the server listens, refusing (:class:`StateError`,
    :class:`InvalidParameterError`) a missing, damaged or wrongly named one, and two stores
    with one name. ``bare``: exactly one store was given, so the bare routes (``/next``, ...)
    name it.
    """

    def __init__(self, stores: Sequence[Path | str] = (), *, folder: Path | str | None = None, new: bool = False):
        if folder is not None and stores:
            raise InvalidParameterError("give session stores or --folder, not both")
        if folder is None and not stores:
            raise InvalidParameterError("give at least one session store, or --folder DIR")
        self.folder = None if folder is None else Path(folder)
        self.new = new
        self.bare = folder is None and len(stores) == 1
        self._campaigns: dict[str, Campaign] = {}
        self._lock = threading.Lock()       # the dictionary
        self._opening = threading.Lock()    # one open or start at a time: the second finds the store
        try:
            if self.folder is not None:
                if not self.folder.is_dir():
                    raise InvalidParameterError(f"--folder {self.folder} is not a folder")
                for path in sorted(self.folder.glob("*" + SUFFIX)):
                    self._add(self._name_of(path), path, Session.open(path))
            else:
                for store in stores:
                    path = Path(store)
                    name = self._name_of(path)
                    if name in self._campaigns:
                        raise InvalidParameterError(f"two stores named {name!r} ({self._campaigns[name].path} and "
                                                    f"{path}): each campaign is named by its file's stem")
                    if new and path.exists():
                        raise InvalidParameterError(f"{path} exists already: serve it without --new, or choose a "
                                                    "new path")
                    self._add(name, path, None if new else Session.open(path))
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _name_of(path: Path) -> str:
        if not NAME_PATTERN.fullmatch(path.stem):
            raise InvalidParameterError(f"session store {path}: its name {path.stem!r} cannot name a campaign (a "
                                        f"name is {NAME_RULE}); rename the file")
        return path.stem

    def _add(self, name: str, path: Path, session: Session | None) -> Campaign:
        campaign = Campaign(name, path, session)
        with self._lock:
            self._campaigns[name] = campaign
        return campaign

    def only(self) -> Campaign:
        """The one campaign of a server given exactly one store (the bare routes')."""
        [campaign] = self._campaigns.values()
        return campaign

    def get(self, name: str) -> Campaign:
        """The campaign ``name``; a store that appeared in the folder since is opened now.

        Refused: a name that is not :data:`NAME_RULE` (:class:`InvalidParameterError`), and one
        this server does not serve (:class:`NoSuchCampaign`).
        """
        check_name(name)
        with self._lock:
            campaign = self._campaigns.get(name)
        if campaign is not None:
            return campaign
        path = None if self.folder is None else self.folder / (name + SUFFIX)
        if path is not None and path.is_file():
            with self._opening:
                with self._lock:
                    campaign = self._campaigns.get(name)
                if campaign is None:
                    campaign = self._add(name, path, Session.open(path))
            return campaign
        hint = f"; POST /campaigns/{name}/start creates it" if self.folder is not None and self.new else ""
        raise NoSuchCampaign(f"no campaign {name!r} here{hint}; the campaigns served: "
                             f"{', '.join(c.name for c in self.list()) or 'none yet'}")

    def list(self) -> list[Campaign]:
        """Every campaign, by name; in a folder, stores added since are opened (a store that cannot be is left out)."""
        if self.folder is not None:
            for path in sorted(self.folder.glob("*" + SUFFIX)):
                if path.stem not in self._campaigns and NAME_PATTERN.fullmatch(path.stem):
                    try:
                        self.get(path.stem)
                    except (InvalidParameterError, NoSuchCampaign):
                        continue  # damaged, or still being created by another process: asked for by name, it says why
        with self._lock:
            return [self._campaigns[name] for name in sorted(self._campaigns)]

    def start(self, name: str, arguments: dict) -> Campaign:
        """Create the store of campaign ``name`` with :meth:`Session.start`'s ``arguments`` (``new`` servers only).

        Refused (:class:`ProtocolError`, answered 409): a server not started with ``new``, a
        campaign whose store exists already. Arguments are checked by :meth:`Session.start`
        before the file exists.
        """
        check_name(name)
        if not self.new:
            served = "the existing session stores" if len(self._campaigns) > 1 or self.folder else \
                f"the existing session store {self.only().path}"
            raise ProtocolError(f"this server serves {served}; start a server with --new (a store that does not "
                                "exist yet, or --folder DIR --new) to start one")
        with self._opening:
            with self._lock:
                campaign = self._campaigns.get(name)
            if campaign is not None:
                path = campaign.path
            elif self.folder is not None:
                path = self.folder / (name + SUFFIX)
            else:
                raise NoSuchCampaign(f"no campaign {name!r} here: this server starts only "
                                     f"{', '.join(sorted(self._campaigns))}")
            if (campaign is not None and campaign.started) or path.exists():
                raise ProtocolError(f"session store {path} exists already: it was started; see GET /status")
            session = Session.start(path, **arguments)
            if campaign is None:
                return self._add(name, path, session)
            campaign.attach(session)
            return campaign

    def close(self) -> int:
        """Close every session (the server calls this once no request is running); return how many were open."""
        with self._lock:
            campaigns = list(self._campaigns.values())
        opened = sum(campaign.started for campaign in campaigns)
        for campaign in campaigns:
            campaign.close()
        return opened
