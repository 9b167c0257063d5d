"""Tracking: the deterministic rule that turns proportions over a support into a sequence of
pulls (:class:`Tracker`), and the hand-out of those pulls in blocks up to the next stopping
check (:class:`Handout`).

The rule ignores rewards, so the sequence of pulls is fixed in advance and the confidence
bounds of :func:`fullbandit.confidence_radius` apply (Soare et al. 2014; Kuroki et al. 2020,
section 4, "static algorithm").
"""

from __future__ import annotations

import heapq

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_int


class Tracker:
    """Deterministic tracking of proportions ``p``: pull the member with the smallest ``T_j / p_j``.

    Ties go to the lowest index, so every member is pulled once before any is pulled
    twice, and a uniform ``p`` gives round robin. A heap keyed by ``(T_j / p_j, j)``
    makes a pull O(log m). The rule reads no reward, which keeps the design static.

    Parameters
    ----------
    proportions : array_like of shape (m,)
        Positive weights (normalised here).
    counts : array_like of shape (m,), optional
        Pulls already allocated per member (to resume a saved run).

    Attributes
    ----------
    proportions : numpy.ndarray
        The weights normalised to sum to 1.
    counts : numpy.ndarray of int
        Pulls allocated per member so far.

    Examples
    --------
    With weights ``(2, 1)`` member 0 gets two pulls out of three:

    >>> from fullbandit.design.tracking import Tracker
    >>> tracker = Tracker([2, 1])
    >>> [tracker.advance() for _ in range(6)]
    [0, 1, 0, 0, 1, 0]
    >>> tracker.counts.tolist()
    [4, 2]
    """

    def __init__(self, proportions, counts=None):
        weights = np.asarray(proportions, dtype=float)
        if weights.ndim != 1 or weights.size == 0 or np.any(~np.isfinite(weights)) or np.any(weights <= 0):
            raise InvalidParameterError("proportions must be a non-empty vector of positive finite weights")
        self.proportions = weights / weights.sum()
        # Keys use the weights as given: T_i / w_i == T_j / w_j as rationals then gives equal
        # floats (division is correctly rounded), so exact ties really go to the lower index.
        self._weights = [float(w) for w in weights]
        self._uniform = len(set(self._weights)) == 1
        if counts is None:
            self.counts = np.zeros(weights.size, dtype=np.int64)
        else:
            self.counts = np.array(counts, dtype=np.int64)
            if self.counts.shape != weights.shape or np.any(self.counts < 0):
                raise InvalidParameterError(
                    f"counts must hold {weights.size} non-negative integers, one per member")
        self._heap = [(int(c) / w, j) for j, (c, w) in enumerate(zip(self.counts, self._weights, strict=True))]
        heapq.heapify(self._heap)

    def peek(self) -> int:
        """The member the rule pulls next, without allocating it.

        Returns
        -------
        int
            Index of the member :meth:`advance` would allocate.

        Examples
        --------
        >>> from fullbandit.design.tracking import Tracker
        >>> tracker = Tracker([1, 3])
        >>> tracker.peek(), tracker.counts.tolist()
        (0, [0, 0])
        """
        return self._heap[0][1]

    def advance(self) -> int:
        """Allocate one pull to the next member and return it.

        Returns
        -------
        int
            Index of the member allocated.

        Examples
        --------
        >>> from fullbandit.design.tracking import Tracker
        >>> tracker = Tracker([1, 3])
        >>> [tracker.advance() for _ in range(4)]
        [0, 1, 1, 1]
        """
        _, member = self._heap[0]
        self.counts[member] += 1
        heapq.heapreplace(self._heap, (int(self.counts[member]) / self._weights[member], member))
        return member

    def allocate(self, total: int) -> np.ndarray:
        """Advance until ``total`` pulls are allocated; return the pulls added per member.

        The counts reached are those of ``total - counts.sum()`` calls of :meth:`advance`.
        With equal weights (round robin) they are computed in one step: every member is
        then within one pull of the others, and the next ones in line are the members with
        the fewest pulls, lowest index first. A few pulls (fewer than one in eight members)
        go through :meth:`advance` (O(log m) each) rather than that O(m) step: a live session
        handing out pulls past a check plans one pull at a time.

        Parameters
        ----------
        total : int
            Total pulls allocated after the call (at least the current total).

        Returns
        -------
        numpy.ndarray of int
            Pulls added per member.

        Examples
        --------
        >>> from fullbandit.design.tracking import Tracker
        >>> tracker = Tracker([1, 1, 1])
        >>> tracker.allocate(7).tolist()
        [3, 2, 2]
        >>> tracker.allocate(8).tolist()  # member 1 is next in line
        [0, 1, 0]
        """
        allocated = int(self.counts.sum())
        total = check_int("total", total, low=allocated)
        missing = total - allocated
        if missing and self._uniform and 8 * missing >= self.counts.size:
            before = self.counts.copy()
            order = np.lexsort((np.arange(before.size), before))  # fewest pulls first, then index
            passes, extra = divmod(missing, before.size)
            added = np.full(before.size, passes, dtype=np.int64)
            added[order[:extra]] += 1
            self.counts += added
            self._heap = [(int(c) / w, j) for j, (c, w) in enumerate(zip(self.counts, self._weights, strict=True))]
            heapq.heapify(self._heap)
            return self.counts - before
        added = np.zeros(self.counts.size, dtype=np.int64)
        for _ in range(missing):
            added[self.advance()] += 1
        return added


class Handout:
    """The pulls a :class:`Tracker` allocates up to the next stopping check, handed out in blocks.

    Members come in turn from a cursor, so single pulls interleave the members, and a block
    takes a member's whole remaining share at once (up to the caller's ``max_count``). Which
    member comes next never reads a reward, so the design stays static.

    Parameters
    ----------
    tracker : Tracker
        The allocation rule (its counts include what is planned here).
    plan : sequence of int, optional
        Pulls allocated to each member and not yet handed out (to resume a saved run).
    cursor : int
        The member the next hand-out starts from.

    Examples
    --------
    >>> from fullbandit.design.tracking import Handout, Tracker
    >>> handout = Handout(Tracker([1, 1, 2]))
    >>> [handout.take(max_count=10, next_check=8, room=100) for _ in range(3)]   # 2 + 2 + 4 pulls
    [(0, 2), (1, 2), (2, 4)]
    >>> handout.take(max_count=10, next_check=8, room=100)   # past the check: one pull at a time
    (0, 1)
    """

    def __init__(self, tracker: Tracker, plan=None, cursor: int = 0):
        self.tracker = tracker
        self.plan = [0] * tracker.counts.size if plan is None else [int(v) for v in plan]
        self.cursor = int(cursor)
        self.planned = sum(self.plan)

    def take(self, max_count: int, next_check: int, room: int) -> tuple[int, int]:
        """The next block ``(member, count)``, planning first when nothing is planned.

        The plan reaches ``next_check`` allocated pulls (one more pull once past it), but
        allocates at most ``room`` pulls beyond those allocated so far (``room >= 1``).
        """
        if not self.planned:
            self._plan_if_empty(next_check, room)
        plan, member = self.plan, self.cursor
        while not plan[member]:
            member = (member + 1) % len(plan)
        count = min(plan[member], max_count)
        plan[member] -= count
        self.planned -= count
        self.cursor = (member + 1) % len(plan)
        return member, count

    def take_all(self, max_count: int, next_check: int, room: int) -> tuple[np.ndarray, np.ndarray]:
        """Every planned block at once, in the order :meth:`take` would hand them out: ``(members, counts)``.

        Plans first when nothing is planned (as :meth:`take`); a member's block holds at
        most ``max_count`` pulls, the rest of its share stays planned.

        Examples
        --------
        >>> from fullbandit.design.tracking import Handout, Tracker
        >>> handout = Handout(Tracker([1, 1, 2]))
        >>> members, counts = handout.take_all(max_count=3, next_check=8, room=100)
        >>> members.tolist(), counts.tolist(), handout.planned   # member 2's fourth pull stays planned
        ([0, 1, 2], [2, 2, 3], 1)
        """
        self._plan_if_empty(next_check, room)
        plan = np.asarray(self.plan, dtype=np.int64)
        order = np.roll(np.arange(plan.size), -self.cursor)
        members = order[plan[order] > 0]
        counts = np.minimum(plan[members], max_count)
        plan[members] -= counts
        self.plan = plan.tolist()
        self.planned -= int(counts.sum())
        if members.size:
            self.cursor = int(members[-1] + 1) % plan.size
        return members, counts

    def _plan_if_empty(self, next_check: int, room: int) -> None:
        if not self.planned:
            allocated = int(self.tracker.counts.sum())
            target = next_check if allocated < next_check else allocated + 1
            self.plan = self.tracker.allocate(min(target, allocated + room)).tolist()
            self.planned = sum(self.plan)

    def give_back(self, member: int, count: int) -> None:
        """Return ``count`` pulls of ``member`` that were handed out and will never be told."""
        self.plan[member] += count
        self.planned += count

    def accounts_for(self, counts, outstanding) -> bool:
        """Whether the tracker's counts are ``counts`` told + ``outstanding`` + the plan (a state check)."""
        return bool(np.array_equal(self.tracker.counts, np.asarray(counts) + np.asarray(outstanding) + self.plan))
