"""Arms in a fresh random order in every run of a batch: what a paper leaves random, drawn at random.

The per-arm algorithms break ties between empirical means towards the lower index
(:func:`fullbandit.semi.accept_reject.top_k_mask`), a deterministic rule any implementation
must pick. A paper's setup that lists its best arms first then hands every tie to the
right answer: with Bernoulli arms and a few samples each, ties are everywhere, and the
algorithms that rank by empirical means (SAR, NSAR) gain most. Shahrampour and Tarokh's
setups are listed best first; their text fixes neither the arms' order nor the tie break,
so a reproduction must not let either favour the answer. :class:`ShuffledArms` gives every
run its own uniformly random arrangement of the arms (drawn from the instance's seeded
generator, so every algorithm meets the same arrangements), which makes index ties fall on
a uniformly random arm among the tied ones.

Examples
--------
>>> import numpy as np
>>> from fullbandit.semi.batch import BernoulliBatch
>>> arms = ShuffledArms.drawn(BernoulliBatch([1.0, 0.0, 0.0]), runs=4, rng=np.random.default_rng(0))
>>> arms.means.shape, arms.means.sum(axis=1).tolist()   # each run has its one good arm somewhere
((4, 3), [1.0, 1.0, 1.0, 1.0])
>>> bool((arms.sample_sums(np.full((4, 3), 2), np.random.default_rng(1)) == 2 * arms.means).all())
True
"""

from __future__ import annotations

import numpy as np

from fullbandit.semi.batch import BatchArms
from fullbandit.util.validation import InvalidParameterError


class ShuffledArms(BatchArms):
    """``arms`` seen by run ``r`` in the order ``orders[r]``: its arm ``j`` is ``arms``' arm ``orders[r, j]``.

    Parameters
    ----------
    arms : BatchArms
        The arms in their listed order.
    orders : array of shape ``(runs, n)``
        One permutation of ``0 .. n-1`` per run. The sampler serves exactly ``runs`` runs.

    Attributes
    ----------
    means : array of shape ``(runs, n)``
        The true mean of every run's arm ``j`` (row ``r`` is ``arms.means[orders[r]]``).
    """

    def __init__(self, arms: BatchArms, orders):
        orders = np.asarray(orders)
        if orders.ndim != 2 or orders.shape[1] != arms.n or not np.issubdtype(orders.dtype, np.integer) \
                or not np.array_equal(np.sort(orders, axis=1), np.broadcast_to(np.arange(arms.n), orders.shape)):
            raise InvalidParameterError(f"orders must be a (runs, {arms.n}) array whose rows are permutations of "
                                        f"0..{arms.n - 1}, got shape {orders.shape}")
        self.arms = arms
        self.orders = orders
        self._positions = np.argsort(orders, axis=1)  # run r's position of the listed arm i
        self.means = arms.means[orders]

    @classmethod
    def drawn(cls, arms: BatchArms, *, runs: int, rng: np.random.Generator) -> ShuffledArms:
        """``arms`` in ``runs`` independent uniformly random orders drawn from ``rng``."""
        return cls(arms, rng.permuted(np.tile(np.arange(arms.n), (runs, 1)), axis=1))

    @property
    def n(self) -> int:
        return int(self.orders.shape[1])

    @property
    def runs(self) -> int:
        return int(self.orders.shape[0])

    @property
    def noise_scale(self) -> float:
        return self.arms.noise_scale

    def sample_one(self, arms, rng):
        arms = np.asarray(arms)
        if arms.shape != (self.runs,):
            raise InvalidParameterError(f"arms must name one arm for each of the {self.runs} runs, got shape "
                                        f"{arms.shape}")
        return self.arms.sample_one(self.orders[np.arange(self.runs), arms], rng)

    def sample_sums(self, counts, rng):
        counts = self._check_counts(counts)
        if counts.shape[0] != self.runs:
            raise InvalidParameterError(f"counts must have a row for each of the {self.runs} runs, got "
                                        f"{counts.shape[0]}")
        listed = np.take_along_axis(counts, self._positions, axis=1)
        return np.take_along_axis(self.arms.sample_sums(listed, rng), self.orders, axis=1)
