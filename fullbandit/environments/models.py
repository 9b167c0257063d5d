"""Reward models and the two feedback kinds.

An environment holds the true means ``theta`` of ``n`` single arms and answers a pull
of a super-arm. With ``feedback="full"`` it returns one number, the sum of the members'
rewards (full-bandit feedback, Kuroki et al. 2020); with ``feedback="semi"`` it returns
each member's reward (semi-bandit feedback). The full observation is always the sum of
the semi observations of the same draw, so the two kinds describe one reward model.

Each environment declares the sub-Gaussian scale ``R`` of its observation noise;
algorithms size their confidence bounds with it, so a wrong ``R`` silently breaks their
guarantees. A bounded environment also declares the range ``(low, high)`` of what a pull
returns (``reward_ranges``), which the variance-adaptive confidence bound
(``confidence="bernstein"``) needs, and can report a block's sum of squared rewards with
its sum (:meth:`Environment.pull_moments`).

Writing an environment
----------------------
Subclass :class:`Environment` and implement two public methods:

* ``noise_scales(k)``: the sub-Gaussian scales ``(per member, of the sum)`` of one pull
  of a size-``k`` super-arm;
* ``member_rewards(arms, count)``: each member's reward summed over ``count``
  independent pulls of ``arms`` (an index array), drawn from ``self.rng``.

Override ``sum_reward(arms, count)`` too when the sum can be drawn more cheaply than the
members (its law must be that of ``member_rewards(arms, count).sum()``). :meth:`Environment.pull`
validates the super-arm and the count, so these methods receive clean input. A bounded
reward model overrides ``reward_ranges(k)``, and, so that blocks of pulls stay cheap with
``confidence="bernstein"``, ``sum_moments(arms, count)`` and ``member_moments(arms, count)``
(the defaults draw a block one pull at a time).

>>> import numpy as np
>>> from fullbandit.environments.models import Environment
>>> class Constant(Environment):
...     "Rewards equal to the means: no noise at all."
...     def noise_scales(self, k):
...         return 0.0, 0.0
...     def member_rewards(self, arms, count):
...         return count * self.means[arms]
>>> Constant([0.5, 0.25, 1.0]).pull((2, 0), count=4)
6.0
"""

from __future__ import annotations

import math
import numbers
import operator
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from fullbandit.util.validation import (
    InvalidParameterError,
    as_generator,
    as_real_array,
    check_choice,
    check_real,
    check_vector,
    check_zero_one_table,
)

FEEDBACK_KINDS = ("full", "semi")
_BLOCK = 4096  # draws taken from the generator at once: a pull then costs no generator call
# Validated super-arms kept: adaptive algorithms pull many distinct ones, and a cyclic-block support has
# 160,000 members at n = 10,000, k = 100 (a smaller cache would be emptied on every pass).
_CACHE_LIMIT = 1 << 18
_SUM_TOLERANCE = 1e-9  # how far a row of categorical probabilities may sum from 1 (rounding)


class _BufferedDraws:
    """Draws taken from a generator in blocks and handed out in order.

    A pull then costs no generator call; the sequence of values is still a function of
    the seed and of the sequence of pulls alone.
    """

    def __init__(self, draw):
        self._draw = draw
        self._buffer = np.empty(0)
        self._next = 0

    def take(self, count: int) -> np.ndarray:
        if self._next + count > self._buffer.size:
            self._buffer = self._draw(max(_BLOCK, count))
            self._next = 0
        values = self._buffer[self._next: self._next + count]
        self._next += count
        return values


class Environment(ABC):
    """Base class: a reward model with a feedback kind and its own seeded generator.

    Subclasses implement ``noise_scales(k)`` and ``member_rewards(arms, count)`` (see the
    module docstring for a complete example).

    Parameters
    ----------
    means : array_like of shape (n,)
        The expected reward ``theta_i`` of each single arm.
    feedback : {"full", "semi"}
        What a pull returns: the sum of the members' rewards, or each member's reward.
    seed : None, int, SeedSequence or Generator
        Source of every random draw of this environment.
    labels : sequence of str, optional
        Names of the arms (e.g. worker ids), for reports.

    Examples
    --------
    >>> from fullbandit import GaussianSum
    >>> environment = GaussianSum([0.2, 0.9, 0.5], labels=["ann", "bo", "cy"], seed=0)
    >>> environment.n, environment.labels[1], environment.feedback
    (3, 'bo', 'full')
    """

    def __init__(self, means, *, feedback: str = "full", seed=None, labels=None):
        self._means = check_vector("means", means)
        self._means.flags.writeable = False
        if self._means.shape[0] < 2:
            raise InvalidParameterError(f"means must hold at least 2 arms, got {self._means.shape[0]}")
        self.feedback = check_choice("feedback", feedback, FEEDBACK_KINDS)
        self._rng = as_generator(seed)
        if labels is not None:
            labels = tuple(str(label) for label in labels)
            if len(labels) != self.n:
                raise InvalidParameterError(f"labels must have length n={self.n}, got {len(labels)}")
        self.labels = labels
        self._validated: dict[tuple, np.ndarray] = {}
        # The same tuple object comes back pull after pull (an algorithm's support member): looked up by
        # identity, a pull hashes no super-arm. Entries keep their key object alive, so ids are not reused.
        self._by_identity: dict[int, tuple[tuple, np.ndarray]] = {}
        self._mean_sums: dict[int, tuple[np.ndarray, float]] = {}

    @property
    def n(self) -> int:
        """Number of single arms."""
        return self._means.shape[0]

    @property
    def means(self) -> np.ndarray:
        """The true means ``theta`` (read-only)."""
        return self._means

    @abstractmethod
    def noise_scales(self, k: int) -> tuple[float, float]:
        """Sub-Gaussian scales ``(per member, of the sum)`` for a size-``k`` super-arm."""

    def noise_scale(self, k: int) -> float:
        """The scale ``R`` of what a pull of a size-``k`` super-arm returns, for this feedback kind."""
        per_member, of_sum = self.noise_scales(k)
        return of_sum if self.feedback == "full" else per_member

    def reward_ranges(self, k: int) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """Ranges ``(per member, of the sum)`` of one pull of a size-``k`` super-arm, or ``None`` if unbounded.

        The default is ``None`` (no range declared); bounded reward models override it.
        """
        return None

    def reward_range(self, k: int) -> tuple[float, float] | None:
        """The range ``(low, high)`` of what one pull of a size-``k`` super-arm returns, or ``None``.

        For this feedback kind: the sum's range (``"full"``), or each member's (``"semi"``).

        Examples
        --------
        >>> from fullbandit import BernoulliTeam, GaussianSum
        >>> BernoulliTeam([0.2, 0.9, 0.5]).reward_range(2), GaussianSum([0.2, 0.9, 0.5]).reward_range(2)
        ((0.0, 2.0), None)
        """
        ranges = self.reward_ranges(k)
        if ranges is None:
            return None
        per_member, of_sum = ranges
        return of_sum if self.feedback == "full" else per_member

    @property
    def rng(self) -> np.random.Generator:
        """The environment's one source of randomness (seeded at construction)."""
        return self._rng

    @abstractmethod
    def member_rewards(self, arms: np.ndarray, count: int) -> np.ndarray:
        """Each member's reward summed over ``count`` independent pulls of ``arms`` (an index array)."""

    def sum_reward(self, arms: np.ndarray, count: int) -> float:
        """The summed reward of ``count`` pulls of ``arms``; same law as ``member_rewards(arms, count).sum()``."""
        return float(np.sum(self.member_rewards(arms, count)))

    def sum_moments(self, arms: np.ndarray, count: int) -> tuple[float, float]:
        """``(sum, sum of squares)`` of the ``count`` summed rewards of ``count`` pulls of ``arms``.

        The default draws the pulls one at a time through ``sum_reward(arms, 1)`` (a single
        pull draws exactly what :meth:`pull` would); override it when a block's moments can be
        drawn at once.
        """
        values = np.array([self.sum_reward(arms, 1) for _ in range(count)])
        return float(values.sum()), float(values @ values)

    def member_moments(self, arms: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Each member's ``(sum, sum of squares)`` of its rewards over ``count`` pulls of ``arms``.

        The default draws the pulls one at a time through ``member_rewards(arms, 1)``.
        """
        values = np.array([self.member_rewards(arms, 1) for _ in range(count)]).reshape(count, arms.size)
        return values.sum(axis=0), (values * values).sum(axis=0)

    def _validated_arms(self, super_arm) -> np.ndarray:
        # Algorithms pull the same few super-arms again and again: validate each once.
        if type(super_arm) is tuple:
            known = self._by_identity.get(id(super_arm))
            if known is not None and known[0] is super_arm:
                return known[1]
        if isinstance(super_arm, str | bytes) or not hasattr(super_arm, "__iter__"):
            raise TypeError(f"super_arm={super_arm!r} must be a sequence of integer arm indices, e.g. (0, 3)")
        key = super_arm if type(super_arm) is tuple else tuple(super_arm)
        arms = self._validated.get(key)
        if arms is None:
            try:
                values = [operator.index(i) for i in key]
            except TypeError:
                raise TypeError(f"super_arm={key!r} must hold integer arm indices") from None
            if not values or min(values) < 0 or max(values) >= self.n or len(set(values)) != len(values):
                raise InvalidParameterError(
                    f"super_arm={key!r} must hold distinct arm indices in 0..{self.n - 1}")
            arms = np.array(values, dtype=np.int32 if self.n <= np.iinfo(np.int32).max else np.intp)
            arms.flags.writeable = False
            if len(self._validated) >= _CACHE_LIMIT:
                self._validated.clear()
            self._validated[key] = arms
        if type(super_arm) is tuple:
            if len(self._by_identity) >= _CACHE_LIMIT:
                self._by_identity.clear()
            self._by_identity[id(super_arm)] = (super_arm, arms)
        return arms

    def _mean_sum(self, arms: np.ndarray) -> float:
        """``theta(arms)``, cached with the validated (read-only) super-arm: the means never change."""
        known = self._mean_sums.get(id(arms))
        if known is not None and known[0] is arms:
            return known[1]
        total = float(self._means[arms].sum())
        if not arms.flags.writeable:  # one of ours: its entries cannot change under the cache
            if len(self._mean_sums) >= _CACHE_LIMIT:
                self._mean_sums.clear()
            self._mean_sums[id(arms)] = (arms, total)
        return total

    def pull(self, super_arm, count: int = 1):
        """Pull ``super_arm`` (a sequence of distinct arm indices) ``count`` times.

        Returns
        -------
        float or numpy.ndarray
            The summed reward (``feedback="full"``) or each member's reward, in the order
            given (``feedback="semi"``), summed over the ``count`` pulls.
        """
        arms, count = self._validated_arms(super_arm), _validated_count(count)
        if self.feedback == "full":
            return self.sum_reward(arms, count)
        return self.member_rewards(arms, count)

    def pull_moments(self, super_arm, count: int = 1):
        """Pull ``super_arm`` ``count`` times and return the rewards' sum and sum of squares.

        What the variance-adaptive bound (``confidence="bernstein"``) needs of a block of
        pulls: ``(sum_s r_s, sum_s r_s^2)`` over the ``count`` observations ``r_s`` (each the
        pull's summed reward, ``feedback="full"``), or these per member (``"semi"``, two
        arrays in the order given). A single pull (``count=1``) draws exactly what
        :meth:`pull` draws; a block has the same law as ``count`` single pulls.

        Returns
        -------
        tuple
            ``(sum, sum_of_squares)``: two floats, or two arrays for ``feedback="semi"``.

        Examples
        --------
        >>> from fullbandit import Replay
        >>> replay = Replay([[1, 1, 0], [1, 0, 0]], seed=0)   # team (0, 1) scores 2, then 1
        >>> total, squares = replay.pull_moments((0, 1), count=10)
        >>> a = total - 10                                    # draws of the first question
        >>> squares == 4 * a + 1 * (10 - a)
        True
        """
        arms, count = self._validated_arms(super_arm), _validated_count(count)
        if self.feedback == "full":
            return self.sum_moments(arms, count)
        return self.member_moments(arms, count)


    def pull_blocks(self, super_arms, counts, *, moments: bool = False):
        """Pull ``super_arms[i]`` ``counts[i]`` times for every ``i``: each block's summed reward (full feedback).

        What a simulation answers to :meth:`fullbandit.core.algorithm.Algorithm.ask_blocks`: one call
        for every pull up to the next stopping check. Block ``i`` has the law of
        ``pull(super_arms[i], count=counts[i])``, and the blocks are independent; the reward
        models draw them vectorised (:meth:`block_sums`), so the call costs far less than a
        pull per block.

        Parameters
        ----------
        super_arms : sequence of sequences of int
        counts : array_like of int
            Pulls of each block, each at least 1.
        moments : bool
            Also return each block's sum of squared rewards (as :meth:`pull_moments`).

        Returns
        -------
        numpy.ndarray or tuple of numpy.ndarray
            The sums, or ``(sums, sums of squares)``.

        Examples
        --------
        >>> from fullbandit import BernoulliTeam
        >>> team = BernoulliTeam([1.0, 0.0, 0.5], seed=0)
        >>> team.pull_blocks([(0, 1), (0,)], [3, 5]).tolist()   # members 0 and 1 always 1 and 0
        [3.0, 5.0]
        """
        if self.feedback != "full":
            raise InvalidParameterError("pull_blocks draws full-bandit feedback (each block's sum); this environment "
                                        f"has feedback={self.feedback!r}: use pull()")
        arms = [self._validated_arms(super_arm) for super_arm in super_arms]
        counts = _validated_counts(counts, len(arms))
        return self.block_moments(arms, counts) if moments else self.block_sums(arms, counts)

    def block_sums(self, arms: list[np.ndarray], counts: np.ndarray) -> np.ndarray:
        """The summed reward of ``counts[i]`` pulls of ``arms[i]`` for each ``i`` (validated input).

        The default draws block after block with :meth:`sum_reward`; a reward model overrides it
        with one vectorised draw of the same law.
        """
        return np.array([self.sum_reward(members, count) for members, count in zip(arms, counts.tolist(), strict=True)])

    def block_moments(self, arms: list[np.ndarray], counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(sums, sums of squares)`` of the blocks (validated input); the default draws block after block."""
        pairs = [self.sum_moments(members, count) for members, count in zip(arms, counts.tolist(), strict=True)]
        return np.array([pair[0] for pair in pairs]), np.array([pair[1] for pair in pairs])

    def _block_mean_sums(self, arms: list[np.ndarray]) -> np.ndarray:
        return np.array([self._mean_sum(members) for members in arms])


class GaussianSum(Environment):
    """Means plus Gaussian noise of standard deviation ``sigma`` on the sum.

    The synthetic setting of Kuroki et al. (2020), section 5 (noise ``N(0, 1)`` on the
    observed sum). With semi-bandit feedback the same noise is split evenly over the
    ``k`` members (each ``N(0, sigma^2 / k)``, independent), so the members' rewards
    add up to a draw of the full-feedback model.

    ``R = sigma`` for the sum; ``sigma / sqrt(k)`` per member. For per-arm (semi-bandit)
    algorithms that pull batches of varying size, use :class:`GaussianArms`.

    Examples
    --------
    >>> from fullbandit import GaussianSum
    >>> environment = GaussianSum([0.9, 0.5, 0.1], sigma=0.5, seed=0)
    >>> round(environment.pull((0, 1)), 3), environment.noise_scale(2)
    (1.463, 0.5)
    """

    def __init__(self, means, sigma: float = 1.0, *, feedback="full", seed=None, labels=None):
        super().__init__(means, feedback=feedback, seed=seed, labels=labels)
        self.sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
        self._normals = _BufferedDraws(self._rng.standard_normal)

    def noise_scales(self, k: int) -> tuple[float, float]:
        return self.sigma / math.sqrt(k), self.sigma

    def sum_reward(self, arms, count):
        # The sum of count draws is one normal draw with count times the variance.
        noise = self.sigma * math.sqrt(count) * self._normals.take(1)[0]
        return float(count * self._mean_sum(arms) + noise)

    def member_rewards(self, arms, count):
        scale = self.sigma * math.sqrt(count / arms.size)
        return count * self._means[arms] + scale * self._normals.take(arms.size)

    # A block of Gaussian draws: sum_s r_s^2 = (sum_s r_s)^2 / count + sum_s (r_s - mean)^2, and
    # the second part is sigma^2 chi^2(count - 1), independent of the sum (Cochran's theorem).
    def sum_moments(self, arms, count):
        total = self.sum_reward(arms, count)
        spread = self.sigma ** 2 * float(self._rng.chisquare(count - 1)) if count > 1 else 0.0
        return total, total * total / count + spread

    def member_moments(self, arms, count):
        totals = self.member_rewards(arms, count)
        spread = self.sigma ** 2 / arms.size * self._rng.chisquare(count - 1, size=arms.size) if count > 1 \
            else np.zeros(arms.size)
        return totals, totals * totals / count + spread

    def block_sums(self, arms, counts):
        return counts * self._block_mean_sums(arms) + self.sigma * np.sqrt(counts) * self._normals.take(counts.size)

    def block_moments(self, arms, counts):
        totals = self.block_sums(arms, counts)
        return totals, totals * totals / counts + self.sigma ** 2 * _chi_square_spreads(self._rng, counts)


class GaussianArms(Environment):
    """Means plus independent Gaussian noise of standard deviation ``sigma`` on every arm.

    The per-arm model of the semi-bandit papers (e.g. Bubeck, Wang, Viswanathan 2013,
    section 5): a member's reward is ``N(theta_i, sigma^2)`` whatever else is pulled with
    it, so a batch of any size draws each arm's law unchanged; the sum of ``k`` members is
    ``N(theta(S), k sigma^2)``. (:class:`GaussianSum` instead fixes the noise of the *sum*
    and splits it over the pulled members, so its per-member noise depends on how many
    are pulled together.)

    ``R = sigma`` per member, ``sigma sqrt(k)`` for the sum.

    Examples
    --------
    >>> from fullbandit.environments.models import GaussianArms
    >>> arms = GaussianArms([0.9, 0.5, 0.1], sigma=0.5, feedback="semi", seed=0)
    >>> arms.pull((0, 2), count=4).round(3).tolist()   # each member's total over 4 pulls
    [3.726, 0.268]
    >>> arms.noise_scales(2)
    (0.5, 0.7071067811865476)
    """

    def __init__(self, means, sigma: float = 1.0, *, feedback="full", seed=None, labels=None):
        super().__init__(means, feedback=feedback, seed=seed, labels=labels)
        self.sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
        self._normals = _BufferedDraws(self._rng.standard_normal)

    def noise_scales(self, k: int) -> tuple[float, float]:
        return self.sigma, self.sigma * math.sqrt(k)

    def member_rewards(self, arms, count):
        return count * self._means[arms] + self.sigma * math.sqrt(count) * self._normals.take(arms.size)

    def sum_reward(self, arms, count):
        noise = self.sigma * math.sqrt(count * arms.size) * self._normals.take(1)[0]
        return float(count * self._mean_sum(arms) + noise)

    # As for GaussianSum: the spread around a block's mean is sigma^2 chi^2(count - 1) per
    # member (k sigma^2 chi^2(count - 1) for the sum), independent of the total.
    def sum_moments(self, arms, count):
        total = self.sum_reward(arms, count)
        spread = arms.size * self.sigma ** 2 * float(self._rng.chisquare(count - 1)) if count > 1 else 0.0
        return total, total * total / count + spread

    def member_moments(self, arms, count):
        totals = self.member_rewards(arms, count)
        spread = self.sigma ** 2 * self._rng.chisquare(count - 1, size=arms.size) if count > 1 \
            else np.zeros(arms.size)
        return totals, totals * totals / count + spread

    def block_sums(self, arms, counts):
        sizes = np.array([members.size for members in arms])
        noise = self.sigma * np.sqrt(counts * sizes) * self._normals.take(counts.size)
        return counts * self._block_mean_sums(arms) + noise

    def block_moments(self, arms, counts):
        totals = self.block_sums(arms, counts)
        sizes = np.array([members.size for members in arms])
        return totals, totals * totals / counts + sizes * self.sigma ** 2 * _chi_square_spreads(self._rng, counts)


class BernoulliTeam(Environment):
    """Independent Bernoulli members: arm ``i`` returns 1 with probability ``means[i]``.

    A team of crowd workers answering a fresh question each, with accuracy as the mean.
    ``R = 1/2`` per member; the sum of ``k`` independent members is ``sqrt(k)/2``-sub-Gaussian.

    Examples
    --------
    >>> from fullbandit import BernoulliTeam
    >>> team = BernoulliTeam([1.0, 0.0, 0.5], feedback="semi", seed=0)
    >>> team.pull((0, 1)), team.pull((0, 1), count=10)   # a block of 10: each member's total
    (array([1., 0.]), array([10.,  0.]))
    """

    def __init__(self, means, *, feedback="full", seed=None, labels=None):
        super().__init__(means, feedback=feedback, seed=seed, labels=labels)
        if np.any(self._means < 0) or np.any(self._means > 1):
            raise InvalidParameterError("means of a BernoulliTeam must lie in [0, 1]")
        self._uniforms = _BufferedDraws(self._rng.random)

    def noise_scales(self, k: int) -> tuple[float, float]:
        return 0.5, 0.5 * math.sqrt(k)

    def reward_ranges(self, k: int) -> tuple[tuple[float, float], tuple[float, float]]:
        return (0.0, 1.0), (0.0, float(k))

    def member_rewards(self, arms, count):
        if count == 1:
            return (self._uniforms.take(arms.size) < self._means[arms]).astype(float)
        return self._rng.binomial(count, self._means[arms]).astype(float)

    def sum_moments(self, arms, count):
        if count == 1:
            total = self.sum_reward(arms, 1)
            return total, total * total
        # One pull's sum has the Poisson-binomial law of the members; a block is a multinomial
        # draw of how many pulls scored 0, 1, ..., k.
        law = np.array([1.0])
        for p in self._means[arms]:
            law = np.convolve(law, [1.0 - p, p])
        law = np.clip(law, 0.0, None)
        scored = self._rng.multinomial(count, law / law.sum())
        values = np.arange(law.size, dtype=float)
        return float(scored @ values), float(scored @ values ** 2)

    def member_moments(self, arms, count):
        totals = self.member_rewards(arms, count)
        return totals, totals.copy()  # 0/1 rewards are their own squares

    def block_sums(self, arms, counts):
        # Each member's hits in a block are Binomial(count, p_i), independent: one draw for all blocks.
        if type(self).member_rewards is not BernoulliTeam.member_rewards or len({a.size for a in arms}) != 1:
            return super().block_sums(arms, counts)  # another law (a subclass), or teams of several sizes
        return self._rng.binomial(counts[:, None], self._means[np.stack(arms)]).sum(axis=1).astype(float)


class _SameQuestion(Environment):
    """Rewards of members answering one question: 0/1 each, so ``R = 1/2`` per member and, the members
    being dependent, only the range's ``k/2`` for a sum of ``k`` (Hoeffding), in ``[0, k]``."""

    def noise_scales(self, k: int) -> tuple[float, float]:
        return 0.5, 0.5 * k

    def reward_ranges(self, k: int) -> tuple[tuple[float, float], tuple[float, float]]:
        return (0.0, 1.0), (0.0, float(k))


class Replay(_SameQuestion):
    """Replay of a real answer matrix: each pull draws one question uniformly at random.

    A member's reward is 1 if that worker answered the drawn question correctly. The
    mean of worker ``i`` is its accuracy (fraction of questions answered correctly), as
    in the crowdsourcing experiment of Kuroki et al. (2020), section 5.

    Members answer the same question, so their rewards are dependent; the sum over a
    size-``k`` super-arm lies in ``[0, k]`` and is only known to be ``k/2``-sub-Gaussian
    (Hoeffding). ``R = 1/2`` per member.

    Parameters
    ----------
    correct : array_like of shape (n_questions, n_workers)
        1 (or True) where the worker answered the question correctly, else 0.

    Examples
    --------
    >>> from fullbandit import Replay
    >>> replay = Replay([[1, 1, 0], [1, 0, 0]], seed=0)      # 2 questions, 3 workers
    >>> replay.means.tolist(), replay.pull((0, 2)) in (1.0,)  # worker 0 is always right, 2 never
    ([1.0, 0.5, 0.0], True)
    """

    def __init__(self, correct, *, feedback="full", seed=None, labels=None):
        matrix = np.asanyarray(correct)
        if matrix.ndim != 2 or matrix.shape[0] < 1:
            raise InvalidParameterError(
                f"correct must be a 2-D (questions x workers) matrix, got shape {matrix.shape}")
        self._correct = check_zero_one_table(matrix, "correct", lambda q, w: f"correct[{q}, {w}]").astype(float)
        super().__init__(self._correct.mean(axis=0), feedback=feedback, seed=seed, labels=labels)
        self._questions = _BufferedDraws(lambda size: self._rng.integers(self.n_questions, size=size))

    @property
    def n_questions(self) -> int:
        return self._correct.shape[0]

    def member_rewards(self, arms, count):
        if count == 1:
            return self._correct[self._questions.take(1)[0], arms]
        # How often each question is drawn in count uniform draws, then each member's hits.
        return self._drawn(count) @ self._correct[:, arms]

    def _drawn(self, count: int) -> np.ndarray:
        return self._rng.multinomial(count, np.full(self.n_questions, 1.0 / self.n_questions))

    def sum_moments(self, arms, count):
        # The team's score on each question; a block knows how often each question was drawn.
        scores = self._correct[:, arms].sum(axis=1)
        if count == 1:
            score = float(scores[self._questions.take(1)[0]])
            return score, score * score
        drawn = self._drawn(count)
        return float(drawn @ scores), float(drawn @ scores ** 2)

    def member_moments(self, arms, count):
        totals = self.member_rewards(arms, count)
        return totals, totals.copy()  # 0/1 rewards are their own squares

    def block_sums(self, arms, counts):
        return self.block_moments(arms, counts)[0]

    def block_moments(self, arms, counts):
        # How often each question is drawn in each block (one multinomial per block, drawn together),
        # then each block's team scores on them; in chunks of blocks to bound the memory.
        totals, squares = np.empty(counts.size), np.empty(counts.size)
        chunk = max(1, (1 << 20) // max(self.n_questions, 1))
        uniform = np.full(self.n_questions, 1.0 / self.n_questions)
        for start in range(0, counts.size, chunk):
            drawn = self._rng.multinomial(counts[start:start + chunk], uniform)
            scores = np.stack([self._correct[:, members].sum(axis=1) for members in arms[start:start + chunk]])
            totals[start:start + chunk] = np.einsum("bq,bq->b", drawn, scores)
            squares[start:start + chunk] = np.einsum("bq,bq->b", drawn, scores * scores)
        return totals, squares


class Categorical(Environment):
    """Arms with a finite support: arm ``i`` returns ``support[j]`` with probability ``probabilities[i, j]``.

    The model of the caption-contest experiment of Shahrampour and Tarokh (section IV.B):
    each caption is an arm, a vote "not funny", "somewhat funny" or "funny" a reward 0, 0.5
    or 1, and a caption's probabilities are its observed vote shares. Members of a
    super-arm draw independently, so the full feedback is the sum of independent members.

    ``R = (max - min) / 2`` per member (Hoeffding's lemma) and ``(max - min) sqrt(k) / 2``
    for the sum of ``k`` members; a member's reward lies in ``[min, max]`` of the support.
    A block of ``count`` pulls of a member is one multinomial draw of how often each value
    came up, so its sum of squares is exact. :func:`fullbandit.semi.batch.batch_arms` draws
    the same law for many runs at once (it reads ``support`` and ``probabilities``).

    Parameters
    ----------
    support : array_like of shape (m,)
        The values an arm can return, finite and strictly increasing.
    probabilities : array_like of shape (n, m)
        Row ``i`` is arm ``i``'s law on the support: non-negative, summing to 1.
    feedback : {"semi", "full"}
        Each member's reward (default), or their sum.
    seed, labels
        As for :class:`Environment`.

    Examples
    --------
    >>> from fullbandit import Categorical
    >>> votes = Categorical([0.0, 0.5, 1.0], [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], seed=0)
    >>> votes.means.tolist(), votes.noise_scales(2), votes.reward_ranges(2)
    ([0.25, 1.0, 0.0], (0.5, 0.7071067811865476), ((0.0, 1.0), (0.0, 2.0)))
    >>> votes.pull((1, 2), count=3).tolist()       # arm 1 always says 1, arm 2 always 0
    [3.0, 0.0]
    >>> total, squares = votes.pull_moments((0,), count=8)
    >>> bool(squares == total / 2)                 # arm 0 returns 0 or 0.5, and 0.5 ** 2 = 0.5 / 2
    True
    """

    def __init__(self, support, probabilities, *, feedback="semi", seed=None, labels=None):
        values = check_vector("support", support)
        if values.size < 1:
            raise InvalidParameterError("support must hold at least one value")
        if np.any(np.diff(values) <= 0):
            raise InvalidParameterError(
                f"support must be strictly increasing (no repeated values), got {values.tolist()}")
        table = as_real_array("probabilities", probabilities)
        if table.ndim != 2 or table.shape[1] != values.size:
            raise InvalidParameterError(
                f"probabilities must have shape (n, {values.size}) (one column per support value), "
                f"got shape {table.shape}")
        if not np.all(np.isfinite(table)):
            raise InvalidParameterError("probabilities must contain only finite values")
        negative = np.flatnonzero((table < 0).any(axis=1))
        if negative.size:
            row = int(negative[0])
            raise InvalidParameterError(
                f"probabilities must be non-negative: row {row} is {table[row].tolist()}")
        totals = table.sum(axis=1)
        off = np.flatnonzero(np.abs(totals - 1.0) > _SUM_TOLERANCE)
        if off.size:
            row = int(off[0])
            raise InvalidParameterError(
                f"every row of probabilities must sum to 1: row {row} sums to {float(totals[row])!r}")
        table /= totals[:, None]
        super().__init__(table @ values, feedback=feedback, seed=seed, labels=labels)
        values.flags.writeable = False
        table.flags.writeable = False
        self._support = values
        self._probabilities = table
        self._squares = values * values
        self._cumulative = np.cumsum(table, axis=1)
        self._cumulative[:, -1] = 1.0  # a uniform draw in [0, 1) never falls past the last value
        self._uniforms = _BufferedDraws(self._rng.random)

    @property
    def support(self) -> np.ndarray:
        """The values an arm can return, increasing (read-only)."""
        return self._support

    @property
    def probabilities(self) -> np.ndarray:
        """Each arm's law on the support, one row per arm (read-only)."""
        return self._probabilities

    def noise_scales(self, k: int) -> tuple[float, float]:
        half_width = float(self._support[-1] - self._support[0]) / 2
        return half_width, half_width * math.sqrt(k)

    def reward_ranges(self, k: int) -> tuple[tuple[float, float], tuple[float, float]]:
        low, high = float(self._support[0]), float(self._support[-1])
        return (low, high), (k * low, k * high)

    def _one_pull(self, arms: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        # Inverse of each member's distribution function: the index of the value drawn.
        return (uniforms[..., None] >= self._cumulative[arms]).sum(axis=-1)

    def _tallies(self, arms: np.ndarray, count: int) -> np.ndarray:
        """How often each support value came up in ``count`` pulls, per member: shape ``(k, m)``."""
        return self._rng.multinomial(count, self._probabilities[arms])

    def member_rewards(self, arms, count):
        if count == 1:
            return self._support[self._one_pull(arms, self._uniforms.take(arms.size))]
        return self._tallies(arms, count) @ self._support

    def member_moments(self, arms, count):
        if count == 1:
            rewards = self.member_rewards(arms, 1)
            return rewards, rewards * rewards
        tallies = self._tallies(arms, count)
        return tallies @ self._support, tallies @ self._squares

    def sum_moments(self, arms, count):
        if count == 1:
            total = self.sum_reward(arms, 1)
            return total, total * total
        # The sum of independent members has no closed-form law on a general support: draw
        # every member of every pull at once (count x k uniforms), then add up per pull.
        sums = self._support[self._one_pull(arms, self._rng.random((count, arms.size)))].sum(axis=1)
        return float(sums.sum()), float(sums @ sums)


def _validated_counts(counts, size: int) -> np.ndarray:
    values = np.asarray(counts)
    if values.shape != (size,) or values.dtype.kind not in "iu" or (size and values.min() < 1):
        raise InvalidParameterError(f"counts must hold {size} integers >= 1, one per block, got {counts!r}")
    return values.astype(np.int64)


def _chi_square_spreads(rng: np.random.Generator, counts: np.ndarray) -> np.ndarray:
    """``chi^2(count - 1)`` for each block (0 for a single pull): a Gaussian block's spread around its mean."""
    return np.where(counts > 1, rng.chisquare(np.maximum(counts - 1, 1)), 0.0)


def _validated_count(count) -> int:
    if type(count) is not int and (isinstance(count, bool) or not isinstance(count, numbers.Integral)) or count < 1:
        raise InvalidParameterError(f"count={count!r} must be an integer >= 1")
    return int(count)



def graded_table(table, labels, row: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """``(matrix, answered, counts, labels)`` of a table of graded answers, one row per ``row``.

    ``table``: 0, 1 or NaN (no answer), rows x workers, or an object with ``correct`` and
    ``worker_ids`` (a :class:`fullbandit.datasets.quiz.QuizData`, whose ids become the labels
    unless ``labels`` is given). Refused, naming the cell or column: another value, a table
    that is not 2-D, a worker who answered nothing (their accuracy is undefined).
    """
    if hasattr(table, "correct") and hasattr(table, "worker_ids"):
        labels = table.worker_ids if labels is None else labels
        table = table.correct
    try:
        matrix: np.ndarray = np.ma.filled(np.ma.asarray(table, dtype=float), np.nan)
    except (TypeError, ValueError):  # text or other objects: numpy's message names no argument
        raise TypeError(f"table must hold only 0, 1 or NaN (no answer), one row per {row}, got {table!r}") from None
    if matrix.ndim != 2 or matrix.shape[0] < 1:
        raise InvalidParameterError(f"table must be a 2-D ({row}s x workers) table, got shape {matrix.shape}")
    answered = ~np.isnan(matrix)
    bad = answered & (matrix != 0) & (matrix != 1)
    if bad.any():
        cell, worker = np.argwhere(bad)[0]
        raise InvalidParameterError(f"table must hold only 0, 1 or NaN (no answer): {float(matrix[cell, worker])!r} "
                                    f"at table[{cell}, {worker}]")
    counts = answered.sum(axis=0)
    if (counts == 0).any():
        worker = int(np.flatnonzero(counts == 0)[0])
        raise InvalidParameterError(f"table column {worker} answered no {row}, so its accuracy is undefined; drop "
                                    "such workers (e.g. load_long(..., min_answers=1))")
    return matrix, answered, counts, labels


class SparseReplay(BernoulliTeam):
    """Replay of a sparse answer table: each member draws one of *its own* answered tasks.

    A real crowd leaves most (worker, task) cells empty, so a task drawn for the whole team
    is usually unanswered by someone. The rule here: on every pull each member draws, with
    replacement and independently of the other members, one task uniformly among the tasks
    *it* answered, and scores 1 if its answer was right. Hence

    * worker ``i``'s mean is exactly its empirical accuracy (correct / answered), so the
      truth a simulation judges against is the real accuracy, never one diluted by the
      unanswered cells (filling them with 0 and using :class:`Replay` would rank workers
      by accuracy times fraction answered);
    * members are independent and each reward is 0/1: ``R = 1/2`` per member, the sum of
      ``k`` members is ``sqrt(k)/2``-sub-Gaussian and lies in ``[0, k]``. A member's
      reward is Bernoulli with its accuracy, so this is :class:`BernoulliTeam` with the
      empirical accuracies, except that a single pull reads a real recorded answer; a
      block of pulls is drawn as one binomial per member (exact for 0/1 rewards).

    What it gives up: answers of members on the same task are not replayed jointly, so a
    correlation between workers (two who copy each other) is not reproduced.

    Parameters
    ----------
    table : CrowdTable or array_like of shape (n_tasks, n_workers)
        1 (right), 0 (wrong) or NaN (no answer); a masked array's masked entries are
        missing too. A :class:`fullbandit.datasets.crowd.CrowdTable` (anything with a
        ``correct`` table and ``worker_ids``) gives its worker ids as labels.
    feedback : {"full", "semi"}
    seed, labels
        As for :class:`Environment`.

    Raises
    ------
    InvalidParameterError
        If an entry is not 0, 1 or missing, or a worker answered no task (its accuracy
        is undefined); the message names the worker column.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.environments.models import SparseReplay
    >>> nan = np.nan
    >>> replay = SparseReplay([[1, nan, 0], [0, 1, nan], [nan, 1, 0]], seed=0)
    >>> replay.means.tolist(), replay.noise_scales(2)   # 1/2, 2/2, 0/2: blanks do not count
    ([0.5, 1.0, 0.0], (0.5, 0.7071067811865476))
    >>> float(replay.pull((1, 2), count=5))              # worker 1 always right, 2 always wrong
    5.0
    """

    def __init__(self, table, *, feedback="full", seed=None, labels=None):
        matrix, answered, counts, labels = graded_table(table, labels, "task")
        # Each worker's answers packed at the top of its column, so a draw is one index per member.
        packed = np.zeros((int(counts.max()), matrix.shape[1]))
        for worker in range(matrix.shape[1]):
            packed[:counts[worker], worker] = matrix[answered[:, worker], worker]
        self._packed, self._counts = packed, counts
        super().__init__(packed.sum(axis=0) / counts, feedback=feedback, seed=seed, labels=labels)

    @property
    def n_answered(self) -> np.ndarray:
        """How many tasks each worker answered (the pool its draws come from)."""
        return self._counts.copy()

    def member_rewards(self, arms, count):
        if count == 1:
            # A uniform task among the member's own answered ones: floor(u * answered).
            rows = (self._uniforms.take(arms.size) * self._counts[arms]).astype(np.intp)
            return self._packed[rows, arms]
        return super().member_rewards(arms, count)


class JointReplay(_SameQuestion):
    """Joint replay of real graded answers: on every pull the whole team answers ONE question.

    What a live campaign sees when every member of a team is given the same question and the
    team's reward is the number of members who answered it rightly: a pull draws one question
    uniformly at random (with replacement) and every member gives its real graded answer to it
    (1 right, 0 wrong). Members are therefore correlated through the question (a hard question
    is missed by many at once), which :class:`BernoulliTeam` and :class:`SparseReplay` (each
    member on its own draw) leave out. On a dense table (every worker answered every question,
    the quiz data sets) this is the law of :class:`Replay`; unlike :class:`Replay` it also takes
    sparse tables.

    **A member who did not answer the drawn question** (a sparse table, e.g. RTE) gives one of
    *its own* answers instead, drawn uniformly among the questions it answered, independently of
    everything else. The choice keeps every worker's mean exactly its accuracy over the
    questions it answered, whatever team it is in (so the means add up, the best team is the
    ``k`` best accuracies and brute force on :attr:`means` finds it), and a pull never fails.
    Its consequence: the correlation is replayed only between members who answered the drawn
    question; on a very sparse table (RTE: 10 answers of 164 workers per task) most members
    fall back and the team is nearly independent, so this forecasts a campaign in which members
    share questions only as often as they did in the data. (Drawing among the questions *all*
    members answered instead would make a team's mean depend on who else is in it, and most
    teams of a sparse table share no question at all.) A worker who answered no question has
    no accuracy and is refused.

    **Declared scales.** A member's reward lies in ``[0, 1]``: ``R = 1/2`` (Hoeffding's lemma).
    The sum of ``k`` members lies in ``[0, k]`` and, the members being dependent, is only known
    to be ``k/2``-sub-Gaussian (Hoeffding's lemma again; it is attained when all members always
    agree, a two-point law on ``{0, k}``), not ``sqrt(k)/2`` as for independent members: an
    algorithm's certified guarantee holds only with a scale that bounds the real noise, so the
    honest ``k/2`` is declared. It is also what a session declaring ``reward_range=(0, k)``
    offers the algorithm, ``(high - low) / 2``.

    Parameters
    ----------
    table : array_like of shape (n_questions, n_workers), or an object with ``correct`` and ``worker_ids``
        1 (right), 0 (wrong) or NaN (no answer); a masked array's masked entries are missing
        too. A :class:`fullbandit.datasets.crowd.CrowdTable` or
        :class:`fullbandit.datasets.QuizData` gives its worker ids as labels.
    feedback : {"full", "semi"}
        The team's number of right answers, or each member's 0/1.
    seed, labels
        As for :class:`Environment`.

    Raises
    ------
    InvalidParameterError
        If the table is not 2-D, an entry is not 0, 1 or missing, or a worker answered no
        question; the message names the entry or the worker column.

    Examples
    --------
    Workers 0 and 1 always agree (both right on question 0, both wrong on question 1), so on
    every pull they score alike; worker 2 answered only question 0 and falls back to it:

    >>> import numpy as np
    >>> from fullbandit.environments.models import JointReplay
    >>> replay = JointReplay([[1, 1, 1], [0, 0, np.nan]], feedback="semi", seed=0)
    >>> replay.means.tolist(), replay.noise_scales(3), replay.reward_ranges(3)
    ([0.5, 0.5, 1.0], (0.5, 1.5), ((0.0, 1.0), (0.0, 3.0)))
    >>> pulls = [replay.pull((0, 1, 2)).tolist() for _ in range(200)]
    >>> all(first == second for first, second, _ in pulls), all(third == 1 for _, _, third in pulls)
    (True, True)
    >>> sorted({first for first, _, _ in pulls})
    [0.0, 1.0]
    """

    def __init__(self, table, *, feedback="full", seed=None, labels=None):
        matrix, answered, counts, labels = graded_table(table, labels, "question")
        filled = np.where(answered, matrix, 0.0)
        # Each worker's own answers packed at the top of its column: a fallback is one index per member.
        packed = np.zeros((int(counts.max()), matrix.shape[1]))
        for worker in range(matrix.shape[1]):
            packed[:counts[worker], worker] = matrix[answered[:, worker], worker]
        for array in (filled, answered, packed, counts):
            array.flags.writeable = False
        self._filled, self._answered, self._packed, self._counts = filled, answered, packed, counts
        self._dense = bool(answered.all())
        super().__init__(filled.sum(axis=0) / counts, feedback=feedback, seed=seed, labels=labels)
        self._uniform = np.full(self.n_questions, 1.0 / self.n_questions)
        self._questions = _BufferedDraws(lambda size: self._rng.integers(self.n_questions, size=size))
        self._uniforms = _BufferedDraws(self._rng.random)

    @property
    def n_questions(self) -> int:
        """Rows of the table: the questions a pull draws from."""
        return self._filled.shape[0]

    @property
    def n_answered(self) -> np.ndarray:
        """How many questions each worker answered (its accuracy's denominator)."""
        return self._counts.copy()

    @property
    def dense(self) -> bool:
        """Whether every worker answered every question (no member ever falls back)."""
        return self._dense

    def member_rewards(self, arms, count):
        if count == 1:
            question = self._questions.take(1)[0]
            rewards = self._filled[question, arms].copy()
            missing = ~self._answered[question, arms]
            if missing.any():  # those members give one of their own answers, uniformly
                absent = arms[missing]
                rows = (self._uniforms.take(absent.size) * self._counts[absent]).astype(np.intp)
                rewards[missing] = self._packed[rows, absent]
            return rewards
        drawn = self._drawn(count)
        totals = drawn @ self._filled[:, arms]
        if not self._dense:
            # A fallback is a uniform draw among the member's own answers: Bernoulli(accuracy), independent.
            fallbacks = drawn @ ~self._answered[:, arms]
            totals += self._rng.binomial(fallbacks, self._means[arms])
        return totals

    def _drawn(self, count: int) -> np.ndarray:
        """How often each question is drawn in ``count`` pulls."""
        return self._rng.multinomial(count, self._uniform)

    def sum_moments(self, arms, count):
        if count == 1:
            total = float(self.member_rewards(arms, 1).sum())
            return total, total * total
        drawn = self._drawn(count)
        scores = self._filled[:, arms].sum(axis=1)  # the answering members' score on each question
        if self._dense:
            return float(drawn @ scores), float(drawn @ scores ** 2)
        total = squares = 0.0
        for question in np.flatnonzero(drawn):
            times, score = int(drawn[question]), float(scores[question])
            absent = arms[~self._answered[question, arms]]
            # The fallback members add a Poisson-binomial count per pull: a multinomial over 0..len(absent).
            law = np.array([1.0])
            for p in self._means[absent]:
                law = np.convolve(law, [1.0 - p, p])
            law = np.clip(law, 0.0, None)
            values = score + np.arange(law.size, dtype=float)
            tally = self._rng.multinomial(times, law / law.sum()) if law.size > 1 else np.array([times])
            total += float(tally @ values)
            squares += float(tally @ values ** 2)
        return total, squares

    def member_moments(self, arms, count):
        totals = self.member_rewards(arms, count)
        return totals, totals.copy()  # 0/1 rewards are their own squares

    def block_sums(self, arms, counts):
        if not self._dense:
            return super().block_sums(arms, counts)
        return self.block_moments(arms, counts)[0]

    def block_moments(self, arms, counts):
        if not self._dense:
            return super().block_moments(arms, counts)
        # As Replay: how often each question is drawn in each block (one multinomial per block,
        # drawn together), then each block's team scores on them; in chunks to bound the memory.
        totals, squares = np.empty(counts.size), np.empty(counts.size)
        chunk = max(1, (1 << 20) // self.n_questions)
        for start in range(0, counts.size, chunk):
            drawn = self._rng.multinomial(counts[start:start + chunk], self._uniform)
            scores = np.stack([self._filled[:, members].sum(axis=1) for members in arms[start:start + chunk]])
            totals[start:start + chunk] = np.einsum("bq,bq->b", drawn, scores)
            squares[start:start + chunk] = np.einsum("bq,bq->b", drawn, scores * scores)
        return totals, squares
