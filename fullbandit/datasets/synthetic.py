"""Synthetic instances of the five papers this project implements.

Each generator is a plain function that returns a :class:`SyntheticInstance`: the
vector of arm means plus, where the paper defines them, the team size ``k``, the
threshold, the tolerance ``epsilon`` and the experiment's other parameters (budgets,
reward distribution).  Every random choice draws from the keyword argument ``seed``
(``None``, a non-negative ``int``, a ``SeedSequence`` or a ``numpy.random.Generator``, see
:func:`fullbandit.util.validation.as_generator`), the package's one name for randomness;
deterministic instances accept ``seed`` too, for a uniform call signature, and use it
only when ``shuffle=True``.

Conventions
-----------
* ``n`` is the number of arms and ``k`` the number of arms to identify, whatever the
  paper calls them (Zhou et al. and Chen et al. write ``K`` for the team size; Tao et al.
  and Shahrampour and Tarokh write ``K`` for the number of arms and ``M`` for the team
  size).
* Arms are returned in the paper's index order (arm ``0`` here is the paper's arm
  ``1``); where the paper orders its arms by mean the best arm comes first.  Pass
  ``shuffle=True`` to apply a uniformly random permutation drawn from ``seed`` so that
  an arm's index carries no information about its rank.
* Where a paper sweeps a parameter (``k`` in Chen et al., Zhou et al. and Shahrampour
  and Tarokh) or its value was lost in conversion (Kuroki et al.), the parameter has no
  default and must be given.

:data:`SYNTHETIC_INSTANCES` maps a stable lowercase name to each generator and
:func:`make_instance` builds one by name.

References
----------
* [KXMHS20] Y. Kuroki, L. Xu, A. Miyauchi, J. Honda and M. Sugiyama, "Polynomial-time
  algorithms for multiple-arm identification with full-bandit feedback", *Neural
  Computation* 32(9), 2020.
* [CCZZ17] J. Chen, X. Chen, Q. Zhang and Y. Zhou, "Adaptive multiple-arm
  identification", in *Proceedings of the 34th International Conference on Machine
  Learning (ICML)*, PMLR 70, 2017.
* [ZCL14] Y. Zhou, X. Chen and J. Li, "Optimal PAC multiple arm identification with
  applications to crowdsourcing", in *Proceedings of the 31st International Conference
  on Machine Learning (ICML)*, 2014.
* [TBPZ19] C. Tao, S. A. Blanco, J. Peng and Y. Zhou, "Thresholding bandit with optimal
  aggregate regret", in *Advances in Neural Information Processing Systems 32
  (NeurIPS)*, 2019.
* [ST] S. Shahrampour and V. Tarokh, "Nonlinear sequential accepts and rejects for
  identification of top arms in stochastic bandits".
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from fullbandit.semi.difficulty import hardness_h1, top_m_gaps
from fullbandit.util.validation import (
    InvalidParameterError,
    as_generator,
    check_choice,
    check_int,
    check_k,
    check_real,
    check_vector,
)

__all__ = [
    "SyntheticInstance",
    "kuroki_planted_gap",
    "chen_twogroup",
    "chen_uniform",
    "chen_synthetic_p",
    "zhou_uniform",
    "zhou_two_level",
    "tao_setup1",
    "tao_setup2",
    "tao_setup3",
    "nsar_setup1",
    "nsar_setup2",
    "nsar_setup3",
    "nsar_setup4",
    "nsar_setup5",
    "nsar_setup6",
    "nsar_gaps",
    "nsar_budget",
    "SYNTHETIC_INSTANCES",
    "make_instance",
]


@dataclass(frozen=True, eq=False)
class SyntheticInstance:
    """A synthetic bandit instance: arm means and the parameters its paper attaches.

    Parameters
    ----------
    name : str
        Registry name of the generator, e.g. ``"chen-twogroup"``.
    means : numpy.ndarray
        Arm means, float, shape ``(n,)``; stored read-only.
    k : int or None
        Number of arms to identify (``None`` for the thresholding bandit).
    threshold : float or None
        Threshold of a thresholding-bandit instance (``None`` otherwise).
    epsilon : float or None
        Tolerance the paper uses with the instance (``None`` if it uses none).
    description : str
        One line: paper, experiment and definition.
    reward : str
        Reward distribution the paper states (``"bernoulli"``), or the project's choice
        where it is not stated (the docstring of each generator says which).
    params : Mapping
        Further experiment parameters stated by the paper (budgets, algorithm settings);
        read-only.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import SyntheticInstance
    >>> instance = SyntheticInstance("demo", [0.9, 0.5, 0.1], k=1)
    >>> instance.n, instance.means.flags.writeable
    (3, False)
    """

    name: str
    means: np.ndarray
    k: int | None = None
    threshold: float | None = None
    epsilon: float | None = None
    description: str = ""
    reward: str = "bernoulli"
    params: Mapping = field(default_factory=dict)

    def __post_init__(self):
        means = np.array(self.means, dtype=float, copy=True)
        means.setflags(write=False)
        object.__setattr__(self, "means", means)
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    @property
    def n(self) -> int:
        """Number of arms, ``len(means)``.

        Examples
        --------
        >>> from fullbandit.datasets.synthetic import tao_setup2
        >>> tao_setup2().n
        20
        """
        return int(self.means.shape[0])


# --------------------------------------------------------------------------- helpers


def _check_shuffle(shuffle) -> bool:
    if not isinstance(shuffle, (bool, np.bool_)):
        raise TypeError(f"shuffle must be a bool, got {shuffle!r} ({type(shuffle).__name__})")
    return bool(shuffle)


def _finish(name: str, means, seed, shuffle: bool, **fields) -> SyntheticInstance:
    """Apply the optional random permutation and wrap the means."""
    means = np.asarray(means, dtype=float)
    gen = as_generator(seed)  # validated even when unused
    if _check_shuffle(shuffle):
        means = means[gen.permutation(means.shape[0])]
    return SyntheticInstance(name=name, means=means, **fields)


def _check_n_k(n, k) -> tuple[int, int]:
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    return n, k


# ------------------------------------------------------------- Kuroki et al. (2020)


def kuroki_planted_gap(n, k, gap, *, seed=None, top_low=0.5, top_high=1.0, rest_low=0.0,
                       shuffle=False) -> SyntheticInstance:
    """Planted-gap instance of Kuroki et al. (2020), section 5, "Synthetic datasets".

    Definition implemented (arm ``i`` below is the ``i``-th best, 1-based):

    1. the ``k`` top means are i.i.d. ``Uniform[top_low, top_high]``;
    2. with ``m`` the smallest of them, the ``(k+1)``-th mean is ``m - gap``;
    3. the remaining ``n - k - 1`` means are i.i.d. ``Uniform[rest_low, m - gap]``.

    Hence the best super-arm (the top ``k``) beats every other ``k``-subset by at least
    ``gap``: another subset leaves out some top arm ``i`` and takes some arm ``j``
    outside the top ``k``, and ``theta_i - theta_j >= m - (m - gap) = gap``; the
    runner-up (swap the ``k``-th and ``(k+1)``-th) is exactly ``gap`` behind, so
    ``gap`` is the minimum gap the paper's experiments vary.

    Parameters
    ----------
    n : int
        Number of arms, ``n >= 2``.
    k : int
        Team size, ``1 <= k < n``.
    gap : float
        The planted minimum gap, ``0 < gap <= top_low - rest_low``.
    seed : None, int, SeedSequence or Generator
        Source of all random draws.
    top_low, top_high : float
        Interval of the top-``k`` means (``top_low <= top_high``).
    rest_low : float
        Lower end of the interval of the other means (``rest_low < top_low``).
    shuffle : bool
        Randomly permute the arms (default: sorted, best first).

    Returns
    -------
    SyntheticInstance
        ``means`` sorted in decreasing order (unless ``shuffle``), ``k``; ``epsilon`` and
        ``threshold`` are ``None``; ``params`` holds ``gap`` and the three interval ends.

    Notes
    -----
    What the paper leaves open and what is chosen here:

    * **Intervals.**  Both sampling intervals were lost in the text conversion.  Top
      means default to ``[0.5, 1]`` and the rest to ``[0, m - gap]``: means stay in
      ``[0, 1]`` (valid accuracies) and every ``gap <= 0.5`` is feasible.  Both are
      parameters.
    * **n, k, gap, noise, delta.**  The values used in the paper's Figures 1-3 were lost,
      so ``n``, ``k`` and ``gap`` have no defaults.  The reward model is not part of the
      instance; ``reward`` is set to ``"gaussian"`` (additive noise on the team's sum,
      as :class:`fullbandit.environments.models.GaussianSum`), the noise law being lost too.
    * **Floating point.**  "Exactly ``gap``" cannot hold in binary arithmetic for every
      ``gap`` (e.g. no two floats in ``[0.5, 1)`` differ by the double nearest ``0.1``).
      The ``(k+1)``-th mean is the largest float ``c`` with ``m - c >= gap`` as computed
      in floating point, so the computed gap is never below ``gap`` and exceeds it by at
      most a couple of units in the last place of ``m`` (it equals ``gap`` whenever ``m - gap``
      is representable, e.g. for dyadic ``gap`` such as ``0.25``).
    * **Order.**  The paper describes arms by rank only; they are returned best first.

    Examples
    --------
    The runner-up team (swap the ``k``-th and ``(k+1)``-th arms) is ``gap`` behind:

    >>> from fullbandit.datasets.synthetic import kuroki_planted_gap
    >>> instance = kuroki_planted_gap(6, 2, 0.25, seed=0)
    >>> float(instance.means[1] - instance.means[2])
    0.25
    >>> bool((instance.means[:2] >= 0.5).all()), instance.k, instance.reward
    (True, 2, 'gaussian')
    >>> shuffled = kuroki_planted_gap(6, 2, 0.25, seed=0, shuffle=True)
    >>> sorted(shuffled.means.tolist()) == sorted(instance.means.tolist())
    True
    """
    n, k = _check_n_k(n, k)
    top_low = check_real("top_low", top_low)
    top_high = check_real("top_high", top_high, low=top_low)
    rest_low = check_real("rest_low", rest_low, high=top_low, high_inclusive=False)
    gap = check_real("gap", gap, low=0.0, high=top_low - rest_low, low_inclusive=False)
    gen = as_generator(seed)

    top = np.sort(gen.uniform(top_low, top_high, size=k))[::-1]
    m = float(top[-1])
    second = _largest_below_gap(m, gap)
    # rest_low <= m - gap, so rest_low <= second (up to rounding, clipped below).
    low = min(rest_low, second)
    rest = np.sort(gen.uniform(low, second, size=n - k - 1))[::-1]
    rest = np.minimum(rest, second)  # uniform(a, b) may return b itself after rounding
    means = np.concatenate([top, [second], rest])
    return _finish(
        "kuroki-planted-gap", means, gen, shuffle, k=k,
        description=(f"Kuroki et al. (2020), sec. 5 synthetic: top-{k} ~ U[{top_low}, {top_high}], "
                     f"(k+1)-th = min(top) - {gap}, rest ~ U[{rest_low}, min(top) - {gap}]"),
        reward="gaussian",
        params={"gap": gap, "top_low": top_low, "top_high": top_high, "rest_low": rest_low},
    )


def _largest_below_gap(m: float, gap: float) -> float:
    """Largest float ``c`` such that the floating-point ``m - c`` is at least ``gap``."""
    c = m - gap
    while m - c < gap:  # rounding made the computed gap too small: step c down
        c = float(np.nextafter(c, -np.inf))
    while m - float(np.nextafter(c, np.inf)) >= gap:  # c may step up and keep the gap
        c = float(np.nextafter(c, np.inf))
    return c


# ------------------------------------------------------- Chen, Chen, Zhang, Zhou (2017)

_CHEN_PARAMS = {"delta": 0.01, "runs": 200, "k_values": (100, 250, 500)}


def chen_twogroup(k, n=1000, *, seed=None, shuffle=False) -> SyntheticInstance:
    """TWOGROUP of Chen, Chen, Zhang and Zhou (ICML 2017), section 3 "Experiments".

    Definition: ``theta_i = 0.7`` for the top ``i <= K`` and ``theta_i = 0.3`` for
    ``i > K``.  The paper uses ``n = 1000``, ``K in {100, 250, 500}`` (Figure 1),
    tolerance ``epsilon = 0.01`` and ``delta = 0.01``.

    Parameters
    ----------
    k : int
        Team size ``K``, ``1 <= k < n`` (swept by the paper, hence no default).
    n : int
        Number of arms (paper: 1000).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means`` (best first unless ``shuffle``), ``k``, ``epsilon = 0.01``,
        ``reward = "bernoulli"``; ``params`` records ``delta = 0.01``, the 200 runs and
        the paper's ``K`` values.

    Notes
    -----
    The paper does not state the reward distribution of its synthetic data sets;
    ``reward="bernoulli"`` is chosen (the paper assumes rewards supported on ``[0, 1]``).

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import chen_twogroup
    >>> instance = chen_twogroup(2, n=5)
    >>> instance.means.tolist(), instance.epsilon
    ([0.7, 0.7, 0.3, 0.3, 0.3], 0.01)
    """
    n, k = _check_n_k(n, k)
    means = np.where(np.arange(n) < k, 0.7, 0.3)
    return _finish("chen-twogroup", means, seed, shuffle, k=k, epsilon=0.01,
                   description=("Chen et al. (2017), sec. 3 TWOGROUP: 0.7 for the top K arms, "
                                "0.3 for the rest"),
                   params=dict(_CHEN_PARAMS))


def chen_uniform(k, n=1000, *, seed=None, shuffle=False) -> SyntheticInstance:
    """UNIFORM of Chen, Chen, Zhang and Zhou (ICML 2017), section 3 "Experiments".

    Definition: ``theta_i = 1 - i/n`` for ``i = 1, ..., n`` (so means span ``[0, 1 - 1/n]``
    in equal steps of ``1/n``).  ``n = 1000``, ``K in {100, 250, 500}`` (Figure 3),
    ``epsilon = 0.01``, ``delta = 0.01``.

    Parameters
    ----------
    k : int
        Team size ``K``, ``1 <= k < n``.
    n : int
        Number of arms (paper: 1000).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means`` (best first unless ``shuffle``), ``k``, ``epsilon = 0.01``,
        ``reward = "bernoulli"``; ``params`` records ``delta = 0.01``, the 200 runs and
        the paper's ``K`` values.

    Notes
    -----
    The formula's fraction was lost in conversion ("1 i n"); ``1 - i/n`` is the reading
    that makes SYNTHETIC-1 identical to UNIFORM, as the paper states.  Reward
    distribution not stated: Bernoulli chosen.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import chen_uniform
    >>> chen_uniform(2, n=5).means.round(2).tolist()
    [0.8, 0.6, 0.4, 0.2, 0.0]
    """
    n, k = _check_n_k(n, k)
    means = 1.0 - np.arange(1, n + 1) / n
    return _finish("chen-uniform", means, seed, shuffle, k=k, epsilon=0.01,
                   description="Chen et al. (2017), sec. 3 UNIFORM: theta_i = 1 - i/n",
                   params=dict(_CHEN_PARAMS))


def chen_synthetic_p(k, p, n=1000, *, seed=None, shuffle=False) -> SyntheticInstance:
    """SYNTHETIC-p of Chen, Chen, Zhang and Zhou (ICML 2017), section 3 "Experiments".

    Definition implemented, with boundary ``b = 1 - K/n`` between the top ``K`` and the
    rest::

        theta_i = b + (K/n)  * ((K - i) / K)**p          for i <= K
        theta_i = b - b      * ((i - K) / (n - K))**p    for i > K

    ``p > 1`` pushes the arms towards the boundary ``b``, ``p < 1`` away from it, and
    the means still span ``[0, 1]`` (``theta_n = 0``, ``theta_1 -> 1``).  The paper uses
    ``p in {0.5, 1, 6}``, ``n = 1000``, ``K in {100, 250, 500}`` (Figures 2-4),
    ``epsilon = 0.01``, ``delta = 0.01``.

    Parameters
    ----------
    k : int
        Team size ``K``, ``1 <= k < n``.
    p : float
        Exponent, ``p > 0``.
    n : int
        Number of arms (paper: 1000).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means`` (best first unless ``shuffle``), ``k``, ``epsilon = 0.01``,
        ``reward = "bernoulli"``; ``params`` records ``delta = 0.01``, the 200 runs and
        the paper's ``K`` values, ``p`` and the paper's ``p`` values.

    Notes
    -----
    Only fragments of the two formulas survived conversion ("(1 - K ..." on both
    branches).  The reconstruction above is the one consistent with everything the text
    states: both branches start from ``1 - K/n``; ``p = 1`` gives exactly UNIFORM
    (``1 - i/n``); larger ``p`` moves arms towards ``1 - K/n``; the means are normalised
    to span ``[0, 1]``.  Reward distribution not stated: Bernoulli chosen.

    For large ``p`` the arms next to the boundary differ by less than double precision
    resolves (``p = 6``, ``n = 1000``, ``K = 100``: the ``(K+1)``-th mean is ``b`` minus
    about ``1e-18``), so the ``K``-th and ``(K+1)``-th means can coincide in floating
    point; the exact top-``K`` set is then not identifiable, only an ``epsilon``-top-``K``
    set, which is what the paper measures.

    Examples
    --------
    With ``n = 10``, ``K = 2``, ``p = 2``: ``b = 0.8``, the top arms are
    ``0.8 + 0.2 ((2 - i)/2)^2`` and the others ``0.8 - 0.8 ((i - 2)/8)^2``:

    >>> from fullbandit.datasets.synthetic import chen_synthetic_p
    >>> chen_synthetic_p(2, 2, n=10).means.round(4).tolist()
    [0.85, 0.8, 0.7875, 0.75, 0.6875, 0.6, 0.4875, 0.35, 0.1875, 0.0]
    """
    n, k = _check_n_k(n, k)
    p = check_real("p", p, low=0.0, low_inclusive=False)
    i = np.arange(1, n + 1, dtype=float)
    b = 1.0 - k / n
    top = b + (k / n) * (np.clip(k - i, 0.0, None) / k) ** p
    rest = b - b * (np.clip(i - k, 0.0, None) / (n - k)) ** p
    means = np.where(i <= k, top, rest)
    return _finish("chen-synthetic-p", means, seed, shuffle, k=k, epsilon=0.01,
                   description=(f"Chen et al. (2017), sec. 3 SYNTHETIC-{p:g}: power-{p:g} "
                                "spacing of 1 - i/n around the boundary 1 - K/n"),
                   params=dict(_CHEN_PARAMS, p=p, p_values=(0.5, 1.0, 6.0)))


# ---------------------------------------------------------------- Zhou, Chen, Li (2014)

_ZHOU_PARAMS = {"budget_multiples": (20, 50, 100), "betas": (0.8, 0.9), "runs": 100,
                "k_values": tuple(range(10, 501, 10))}


def zhou_uniform(k, n=1000, *, seed=None, shuffle=False) -> SyntheticInstance:
    """Uniform instance of Zhou, Chen and Li (ICML 2014), section 6.1, Figure 1(a)-(c).

    Definition: ``theta_i ~ Uniform[0, 1]`` i.i.d., ``i = 1, ..., n``; independent
    Bernoulli arms.  The paper uses ``n = 1000``, ``K = 10, 20, ..., 500`` and budgets
    ``Q in {20n, 50n, 100n}`` (recorded in ``params`` as ``budget_multiples`` and
    ``budgets``), OptMAI with ``beta in {0.8, 0.9}``, 100 runs.

    Parameters
    ----------
    k : int
        Team size ``K``, ``1 <= k < n``.
    n : int
        Number of arms (paper: 1000).
    seed : None, int, SeedSequence or Generator
        Source of the means.
    shuffle : bool
        Randomly permute the arms (the draws are already exchangeable).

    Returns
    -------
    SyntheticInstance
        ``means`` (draw order unless ``shuffle``), ``k``, ``epsilon = None``,
        ``reward = "bernoulli"``; ``params`` records the budgets ``Q = 20n, 50n, 100n``,
        OptMAI's ``beta in {0.8, 0.9}``, the 100 runs and the paper's ``K`` values.

    Notes
    -----
    The paper does not say whether the means are redrawn for every run; one call here
    is one draw, kept in draw order (not sorted).  No ``epsilon``: OptMAI is a
    fixed-budget algorithm judged by its aggregate regret.  The truncated-normal and
    Beta instances the paper mentions are in its appendix, which is not in the text
    available here (their parameters are unknown), so they are not provided.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import zhou_uniform
    >>> instance = zhou_uniform(10, seed=0)
    >>> instance.n, bool(((instance.means >= 0) & (instance.means <= 1)).all())
    (1000, True)
    >>> bool((zhou_uniform(10, seed=0).means == instance.means).all())  # same seed, same draw
    True
    """
    n, k = _check_n_k(n, k)
    gen = as_generator(seed)
    means = gen.uniform(0.0, 1.0, size=n)
    return _finish("zhou-uniform", means, gen, shuffle, k=k,
                   description="Zhou et al. (2014), sec. 6.1 setting 1: theta_i ~ Unif[0, 1] i.i.d.",
                   params=dict(_ZHOU_PARAMS, budgets=tuple(q * n for q in (20, 50, 100))))


def zhou_two_level(k, n=1000, *, seed=None, shuffle=False) -> SyntheticInstance:
    """Two-level instance of Zhou, Chen and Li (ICML 2014), section 6.1, Figure 1(d)-(f).

    Definition: ``theta_i = 0.6`` for ``i = 1, ..., K`` and ``theta_i = 0.5`` for
    ``i = K + 1, ..., n``; independent Bernoulli arms; ``n = 1000``,
    ``K = 10, 20, ..., 500``, budgets ``Q in {20n, 50n, 100n}``.

    Parameters
    ----------
    k : int
        Team size ``K``, ``1 <= k < n``.
    n : int
        Number of arms (paper: 1000).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means`` (best first unless ``shuffle``), ``k``, ``epsilon = None``,
        ``reward = "bernoulli"``; ``params`` records the budgets ``Q = 20n, 50n, 100n``,
        OptMAI's ``beta in {0.8, 0.9}``, the 100 runs and the paper's ``K`` values.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import zhou_two_level
    >>> instance = zhou_two_level(2, n=5)
    >>> instance.means.tolist(), instance.params["budgets"]
    ([0.6, 0.6, 0.5, 0.5, 0.5], (100, 250, 500))
    """
    n, k = _check_n_k(n, k)
    means = np.where(np.arange(n) < k, 0.6, 0.5)
    return _finish("zhou-two-level", means, seed, shuffle, k=k,
                   description=("Zhou et al. (2014), sec. 6.1 setting 2: 0.6 for the top K arms, "
                                "0.5 for the rest"),
                   params=dict(_ZHOU_PARAMS, budgets=tuple(q * n for q in (20, 50, 100))))


# ------------------------------------------------------- Tao, Blanco, Peng, Zhou (2019)

_TAO_PARAMS = {"alpha": 1.35, "apt_epsilons": (0.0, 0.025, 0.05, 0.1),
               "ucbe_b": (-1.0, 0.0, 4.0), "optkg_priors": ((1.0, 1.0), (0.5, 0.5)), "runs": 5000}
def _tao(name: str, setup: int, means, seed, shuffle, definition: str) -> SyntheticInstance:
    return _finish(name, means, seed, shuffle, threshold=0.5,
                   description=f"Tao et al. (2019), sec. 5 Setup {setup}: {definition}, threshold 0.5",
                   params=dict(_TAO_PARAMS))


def tao_setup1(*, seed=None, shuffle=False) -> SyntheticInstance:
    """Setup 1 (arithmetic progression I) of Tao, Blanco, Peng and Zhou (NeurIPS 2019), section 5.

    Definition: 10 Bernoulli arms, ``theta_{1:4} = 0.2 + (0:3) * 0.05``,
    ``theta_5 = 0.45``, ``theta_6 = 0.55``, ``theta_{7:10} = 0.65 + (0:3) * 0.05``,
    threshold ``theta = 0.5`` (Figure 1, Setup 1).

    Parameters
    ----------
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means`` in the paper's order, ``threshold = 0.5``, ``k = None``,
        ``epsilon = None``, ``reward = "bernoulli"``.

    Notes
    -----
    The paper's thresholding bandit problem has no tolerance, so ``epsilon`` is
    ``None``.  The precision values ``0, 0.025, 0.05, 0.1`` that the paper gives its APT
    baseline are recorded in ``params["apt_epsilons"]``, together with LSA's
    ``alpha = 1.35``, the UCBE ``b`` values, the Opt-KG priors and the 5000 runs.  The
    paper's ``K`` (number of arms) is ``n`` here.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import tao_setup1
    >>> instance = tao_setup1()
    >>> instance.means.round(2).tolist()
    [0.2, 0.25, 0.3, 0.35, 0.45, 0.55, 0.65, 0.7, 0.75, 0.8]
    >>> instance.threshold, instance.k, instance.params["alpha"]
    (0.5, None, 1.35)
    """
    means = np.concatenate([0.2 + 0.05 * np.arange(4), [0.45, 0.55], 0.65 + 0.05 * np.arange(4)])
    return _tao("tao-setup1", 1, means, seed, shuffle, "0.2..0.35, 0.45, 0.55, 0.65..0.8")


def tao_setup2(*, seed=None, shuffle=False) -> SyntheticInstance:
    """Setup 2 (arithmetic progression II) of Tao, Blanco, Peng and Zhou (NeurIPS 2019), section 5.

    Definition: 20 Bernoulli arms, ``theta_i = 0.405 + (i - 1)/100`` for
    ``i = 1, ..., 20`` (0.405 to 0.595), threshold ``theta = 0.5`` (Figure 1, Setup 2).

    Parameters
    ----------
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means`` in the paper's order, ``threshold = 0.5``, ``k = None``,
        ``epsilon = None``, ``reward = "bernoulli"``; ``params`` as for
        :func:`tao_setup1`.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import tao_setup2
    >>> instance = tao_setup2()
    >>> instance.n, float(instance.means[0]), float(instance.means[-1]), instance.threshold
    (20, 0.405, 0.595, 0.5)
    """
    means = 0.405 + np.arange(20) / 100
    return _tao("tao-setup2", 2, means, seed, shuffle, "theta_i = 0.405 + (i-1)/100, i = 1..20")


def tao_setup3(*, seed=None, shuffle=False) -> SyntheticInstance:
    """Setup 3 (two-group setting) of Tao, Blanco, Peng and Zhou (NeurIPS 2019), section 5.

    Definition: 10 Bernoulli arms, ``theta_{1:5} = 0.45`` and ``theta_{6:10} = 0.505``,
    threshold ``theta = 0.5`` (Figure 1, Setup 3).

    Parameters
    ----------
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means`` in the paper's order, ``threshold = 0.5``, ``k = None``,
        ``epsilon = None``, ``reward = "bernoulli"``; ``params`` as for
        :func:`tao_setup1`.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import tao_setup3
    >>> tao_setup3().means.tolist()
    [0.45, 0.45, 0.45, 0.45, 0.45, 0.505, 0.505, 0.505, 0.505, 0.505]
    >>> sorted(tao_setup3(seed=1, shuffle=True).means.tolist()) == tao_setup3().means.tolist()
    True
    """
    means = np.array([0.45] * 5 + [0.505] * 5)
    return _tao("tao-setup3", 3, means, seed, shuffle, "0.45 (x5), 0.505 (x5)")


# ------------------------------------------------------------ Shahrampour and Tarokh

_NSAR_PARAMS = {"p_values": (0.7, 0.85, 1.1, 1.2, 1.3), "k_values": (2, 4), "runs": 4000}


def nsar_gaps(means, k) -> np.ndarray:
    """Gaps ``Delta_i^(M)`` of Shahrampour and Tarokh, equation (4), for each arm.

    Parameters
    ----------
    means : array_like
        Arm means, shape ``(n,)``.
    k : int
        Team size ``M``, ``1 <= k < n``.

    Returns
    -------
    numpy.ndarray
        ``mu_i - mu_(M+1)`` for a top-``M`` arm and ``mu_(M) - mu_i`` for the others,
        where ``mu_(j)`` is the ``j``-th largest mean; in the arms' order.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import nsar_gaps
    >>> nsar_gaps([0.9, 0.5, 0.7, 0.1], 2).round(2).tolist()
    [0.4, 0.2, 0.2, 0.6]
    """
    means = check_vector("means", means)
    return top_m_gaps(means, check_k(k, means.shape[0]))


def nsar_budget(means, k) -> int:
    """Budget ``T = ceil(H_1^(M))`` of Shahrampour and Tarokh, section IV-A.

    ``H_1^(M) = sum_i (Delta_i^(M))^-2`` (equation (4), :func:`nsar_gaps`).  ``H_1`` is
    rounded to 9 decimals before the ceiling so that a floating-point excess such as
    ``1250.0000000000002`` does not add a pull.

    Parameters
    ----------
    means : array_like
        Arm means, shape ``(n,)``.
    k : int
        Team size ``M``, ``1 <= k < n``.

    Returns
    -------
    int
        The budget ``T``.

    Raises
    ------
    InvalidParameterError
        If some gap is zero (``H_1`` infinite).

    Examples
    --------
    Gaps 0.4, 0.2, 0.2, 0.6 give ``H_1 = 6.25 + 25 + 25 + 2.78 = 59.03``:

    >>> from fullbandit.datasets.synthetic import nsar_budget
    >>> nsar_budget([0.9, 0.5, 0.7, 0.1], 2)
    60
    """
    means = check_vector("means", means)
    hardness = hardness_h1(means, check_k(k, means.shape[0]))
    if not math.isfinite(hardness):
        raise InvalidParameterError(
            "means have a zero gap Delta_i^(M) (tie at the k-th mean): H_1 and the budget are infinite")
    return int(math.ceil(round(hardness, 9)))


def _nsar(name: str, setup: int, means, k: int, seed, shuffle, definition: str) -> SyntheticInstance:
    return _finish(name, means, seed, shuffle, k=k,
                   description=f"Shahrampour and Tarokh, sec. IV-A setup {setup}: {definition}",
                   params=dict(_NSAR_PARAMS, budget=nsar_budget(means, k)))


def _nsar_n_k(n, k, groups: int, extra: int = 0) -> tuple[int, int]:
    """Check ``n`` and ``k`` leave room for ``groups`` groups of ``k`` arms plus ``extra`` + 1 more."""
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    if groups * k + extra >= n:
        bound = f"(n - {extra})/{groups}" if extra else f"n/{groups}"
        raise InvalidParameterError(
            f"k={k} must satisfy 1 <= k < {bound} = {(n - extra) / groups:g} for this setup (n={n})")
    return n, k


def nsar_setup1(k, n=50, *, seed=None, shuffle=False) -> SyntheticInstance:
    """Setup 1 (one group of suboptimal arms) of Shahrampour and Tarokh, section IV-A.

    Definition: ``K = 50`` Bernoulli arms, ``mu_{1:M} = 0.7``, ``mu_{M+1:K} = 0.5``.

    Parameters
    ----------
    k : int
        Team size ``M`` (the paper runs ``M = 2`` and ``M = 4``; no default).
    n : int
        Number of arms, the paper's ``K`` (paper: 50).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means``, ``k``, ``reward = "bernoulli"``; ``params["budget"]`` is the paper's
        budget ``T = ceil(H_1^(M))`` for these means (:func:`nsar_budget`) and ``params``
        also records the NSAR exponents ``p in {0.7, 0.85, 1.1, 1.2, 1.3}``, the paper's
        ``M in {2, 4}`` and its 4000 runs.

    Examples
    --------
    Fifty gaps of 0.2 give the budget ``50 / 0.2^2 = 1250``:

    >>> from fullbandit.datasets.synthetic import nsar_setup1
    >>> instance = nsar_setup1(2)
    >>> instance.means[:4].tolist(), instance.params["budget"]
    ([0.7, 0.7, 0.5, 0.5], 1250)
    """
    n, k = _nsar_n_k(n, k, 1)
    means = np.where(np.arange(n) < k, 0.7, 0.5)
    return _nsar("nsar-setup1", 1, means, k, seed, shuffle, "0.7 (top M), 0.5 (rest)")


def nsar_setup2(k, n=50, *, seed=None, shuffle=False) -> SyntheticInstance:
    """Setup 2 (two groups of suboptimal arms) of Shahrampour and Tarokh, section IV-A.

    Definition: ``K = 50`` Bernoulli arms, ``mu_{1:M} = 0.7``, ``mu_{M+1:2M} = 0.66``,
    ``mu_{2M+1:K} = 0.5`` (requires ``2M < K``).

    Parameters
    ----------
    k : int
        Team size ``M`` (the paper runs ``M = 2`` and ``M = 4``; no default).
    n : int
        Number of arms, the paper's ``K`` (paper: 50).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means``, ``k``, ``reward = "bernoulli"``; ``params["budget"]`` is the paper's
        budget ``T = ceil(H_1^(M))`` for these means (:func:`nsar_budget`) and ``params``
        also records the NSAR exponents ``p in {0.7, 0.85, 1.1, 1.2, 1.3}``, the paper's
        ``M in {2, 4}`` and its 4000 runs.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import nsar_setup2
    >>> nsar_setup2(2, n=6).means.tolist()
    [0.7, 0.7, 0.66, 0.66, 0.5, 0.5]
    """
    n, k = _nsar_n_k(n, k, 2)
    i = np.arange(n)
    means = np.select([i < k, i < 2 * k], [0.7, 0.66], 0.5)
    return _nsar("nsar-setup2", 2, means, k, seed, shuffle, "0.7 (M), 0.66 (M), 0.5 (rest)")


def nsar_setup3(k, n=50, *, seed=None, shuffle=False) -> SyntheticInstance:
    """Setup 3 (three groups of suboptimal arms) of Shahrampour and Tarokh, section IV-A.

    Definition: ``K = 50`` Bernoulli arms, ``mu_{1:M} = 0.7``, ``mu_{M+1:2M} = 0.66``,
    ``mu_{2M+1:3M} = 0.62``, ``mu_{3M+1:K} = 0.5`` (requires ``3M < K``).

    Parameters
    ----------
    k : int
        Team size ``M`` (the paper runs ``M = 2`` and ``M = 4``; no default).
    n : int
        Number of arms, the paper's ``K`` (paper: 50).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means``, ``k``, ``reward = "bernoulli"``; ``params["budget"]`` is the paper's
        budget ``T = ceil(H_1^(M))`` for these means (:func:`nsar_budget`) and ``params``
        also records the NSAR exponents ``p in {0.7, 0.85, 1.1, 1.2, 1.3}``, the paper's
        ``M in {2, 4}`` and its 4000 runs.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import nsar_setup3
    >>> nsar_setup3(1, n=5).means.tolist()
    [0.7, 0.66, 0.62, 0.5, 0.5]
    """
    n, k = _nsar_n_k(n, k, 3)
    i = np.arange(n)
    means = np.select([i < k, i < 2 * k, i < 3 * k], [0.7, 0.66, 0.62], 0.5)
    return _nsar("nsar-setup3", 3, means, k, seed, shuffle, "0.7 (M), 0.66 (M), 0.62 (M), 0.5 (rest)")


def nsar_setup4(k, n=50, *, seed=None, shuffle=False, best=0.7) -> SyntheticInstance:
    """Setup 4 (arithmetic progression) of Shahrampour and Tarokh, section IV-A.

    Definition implemented: ``mu_i = best - Delta_i`` with
    ``Delta_i = 0.6 (i - 1) / (K - 1)`` for ``i = 1, ..., K`` (``Delta_1 = 0``), ``K = 50``
    Bernoulli arms, ``best = 0.7`` (so the means run from 0.7 down to 0.1).

    Parameters
    ----------
    k : int
        Team size ``M`` (the paper runs ``M = 2`` and ``M = 4``; no default).
    n : int
        Number of arms, the paper's ``K`` (paper: 50).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.
    best : float
        Mean of the best arm, ``0.6 <= best <= 1`` (so all means stay in ``[0, 1]``).

    Returns
    -------
    SyntheticInstance
        ``means``, ``k``, ``reward = "bernoulli"``; ``params["budget"]`` is the paper's
        budget ``T = ceil(H_1^(M))`` for these means (:func:`nsar_budget`) and ``params``
        also records the NSAR exponents ``p in {0.7, 0.85, 1.1, 1.2, 1.3}``, the paper's
        ``M in {2, 4}`` and its 4000 runs.

    Notes
    -----
    The paper gives only the gaps ``Delta_i = 0.6 (i - 1)/(K - 1)``, ``i = 2..K``, not the
    mean they are measured from.  They are read as gaps to the best arm,
    ``Delta_i = mu_1 - mu_i`` (the single-best-arm convention of the experiments this
    setup is borrowed from; as the ``Delta_i^(M)`` of equation (4) they would
    contradict each other, since for ``M = 2`` both ``Delta_2^(M)`` and ``Delta_3^(M)``
    equal ``mu_2 - mu_3``), and ``mu_1 = 0.7`` is chosen: the top mean of every
    other deterministic setup of the paper, keeping all Bernoulli means in
    ``[0.1, 0.7]``.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import nsar_setup4
    >>> nsar_setup4(2, n=7).means.round(2).tolist()
    [0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    """
    n, k = _nsar_n_k(n, k, 1)
    best = check_real("best", best, low=0.6, high=1.0)
    means = best - 0.6 * np.arange(n) / (n - 1)
    return _nsar("nsar-setup4", 4, means, k, seed, shuffle, f"mu_i = {best:g} - 0.6 (i-1)/(K-1)")


def nsar_setup5(k, n=50, *, seed=None, shuffle=False) -> SyntheticInstance:
    """Setup 5 (Beta(5, 5) means) of Shahrampour and Tarokh, section IV-A.

    Definition: ``K = 50`` Bernoulli arms whose means are drawn i.i.d. from
    ``Beta(5, 5)`` (concentrated around 0.5).

    Parameters
    ----------
    k : int
        Team size ``M`` (the paper runs ``M = 2`` and ``M = 4``; no default).
    n : int
        Number of arms, the paper's ``K`` (paper: 50).
    seed : None, int, SeedSequence or Generator
        Source of the means.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means``, ``k``, ``reward = "bernoulli"``; ``params["budget"]`` is the paper's
        budget ``T = ceil(H_1^(M))`` for these means (:func:`nsar_budget`) and ``params``
        also records the NSAR exponents ``p in {0.7, 0.85, 1.1, 1.2, 1.3}``, the paper's
        ``M in {2, 4}`` and its 4000 runs.

    Notes
    -----
    The paper does not say whether the means are redrawn for every run; one call is one
    draw, kept in draw order (the top ``M`` arms may be anywhere), and the budget is
    ``ceil(H_1^(M))`` of the drawn means.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import nsar_budget, nsar_setup5
    >>> instance = nsar_setup5(2, seed=0)
    >>> instance.n, instance.params["budget"] == nsar_budget(instance.means, 2)
    (50, True)
    """
    n, k = _nsar_n_k(n, k, 1)
    gen = as_generator(seed)
    means = gen.beta(5.0, 5.0, size=n)
    return _nsar("nsar-setup5", 5, means, k, gen, shuffle, "mu_i ~ Beta(5, 5) i.i.d.")


def nsar_setup6(k, n=50, *, seed=None, shuffle=False) -> SyntheticInstance:
    """Setup 6 (one real competitive arm) of Shahrampour and Tarokh, section IV-A.

    Definition: ``K = 50`` Bernoulli arms, ``mu_{1:M} = 0.7``, ``mu_{M+1} = 0.68``,
    ``mu_{M+2:K} = 0.5`` (requires ``M + 1 < K``).

    Parameters
    ----------
    k : int
        Team size ``M`` (the paper runs ``M = 2`` and ``M = 4``; no default).
    n : int
        Number of arms, the paper's ``K`` (paper: 50).
    seed : None, int, SeedSequence or Generator
        Used only when ``shuffle`` is true.
    shuffle : bool
        Randomly permute the arms.

    Returns
    -------
    SyntheticInstance
        ``means``, ``k``, ``reward = "bernoulli"``; ``params["budget"]`` is the paper's
        budget ``T = ceil(H_1^(M))`` for these means (:func:`nsar_budget`) and ``params``
        also records the NSAR exponents ``p in {0.7, 0.85, 1.1, 1.2, 1.3}``, the paper's
        ``M in {2, 4}`` and its 4000 runs.

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import nsar_setup6
    >>> nsar_setup6(2, n=5).means.tolist()
    [0.7, 0.7, 0.68, 0.5, 0.5]
    """
    n, k = _nsar_n_k(n, k, 1, extra=1)
    i = np.arange(n)
    means = np.select([i < k, i == k], [0.7, 0.68], 0.5)
    return _nsar("nsar-setup6", 6, means, k, seed, shuffle, "0.7 (M), 0.68 (one arm), 0.5 (rest)")


# ------------------------------------------------------------------------- registry

SYNTHETIC_INSTANCES: dict[str, Callable[..., SyntheticInstance]] = {
    "kuroki-planted-gap": kuroki_planted_gap,
    "chen-twogroup": chen_twogroup,
    "chen-uniform": chen_uniform,
    "chen-synthetic-p": chen_synthetic_p,
    "zhou-uniform": zhou_uniform,
    "zhou-two-level": zhou_two_level,
    "tao-setup1": tao_setup1,
    "tao-setup2": tao_setup2,
    "tao-setup3": tao_setup3,
    "nsar-setup1": nsar_setup1,
    "nsar-setup2": nsar_setup2,
    "nsar-setup3": nsar_setup3,
    "nsar-setup4": nsar_setup4,
    "nsar-setup5": nsar_setup5,
    "nsar-setup6": nsar_setup6,
}


def make_instance(name, *, seed=None, **params) -> SyntheticInstance:
    """Build the synthetic instance registered as ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`SYNTHETIC_INSTANCES`, e.g. ``"chen-synthetic-p"``.
    seed : None, int, SeedSequence or Generator
        Passed to the generator.
    **params
        The generator's other arguments, e.g. ``k=100, p=6``.

    Returns
    -------
    SyntheticInstance
        What the generator returns.

    Raises
    ------
    InvalidParameterError
        If ``name`` is not registered (the message lists the allowed names).
    TypeError
        If a required argument is missing or an unknown one is given (the message names
        the argument and the generator).

    Examples
    --------
    >>> from fullbandit.datasets.synthetic import make_instance
    >>> instance = make_instance("chen-twogroup", k=2, n=4)
    >>> instance.name, instance.means.tolist()
    ('chen-twogroup', [0.7, 0.7, 0.3, 0.3])
    >>> make_instance("kuroki-planted-gap", seed=1, n=5, k=2, gap=0.1).n
    5
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {name!r} ({type(name).__name__})")
    check_choice("name", name, sorted(SYNTHETIC_INSTANCES))
    generator = SYNTHETIC_INSTANCES[name]
    try:
        inspect.signature(generator).bind(seed=seed, **params)
    except TypeError as error:
        raise TypeError(f"make_instance({name!r}): {error} "
                        f"(signature: {generator.__name__}{inspect.signature(generator)})") from None
    return generator(seed=seed, **params)
