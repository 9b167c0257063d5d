"""Least squares over a static design and the confidence radius ``C_t``.

With a static allocation the pulled super-arms come from a fixed support chosen before
any reward is seen, so a pull only bumps a count and a reward sum per support member
(O(1)); the Gram matrix ``A_t``, its Cholesky factor and ``theta_hat_t`` are formed only
when a stopping rule is checked (ALGORITHMS.md section 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fullbandit._validation import InvalidParameterError, check_choice, check_int, check_probability, check_real

CONFIDENCE_CONSTANTS = ("tight", "paper")
SINGULAR_TOLERANCE = 1e-10  # relative pivot size below which a Gram matrix counts as singular


class SingularDesignError(InvalidParameterError):
    """The pulled super-arms do not span R^n, so ``theta`` is not identifiable from them."""


def confidence_radius(t: int, delta: float, noise_scale: float, n_directions: int,
                      constant: str = "tight") -> float:
    """The radius ``C_t`` of a confidence bound valid for all rounds and directions at once.

    With probability at least ``1 - delta``, for every round ``t >= 1`` and every ``x`` in a
    fixed set of ``n_directions`` vectors, ``|x . (theta - theta_hat_t)| <= C_t ||x||_{A_t^-1}``,
    provided the sequence of pulls is fixed in advance and the noise is
    ``noise_scale``-sub-Gaussian.

    Parameters
    ----------
    t : int
        Number of pulls so far, ``t >= 1``.
    delta : float
        Error probability, ``0 < delta < 1``.
    noise_scale : float
        Sub-Gaussian scale ``R`` of one observation's noise, ``R > 0``.
    n_directions : int
        Size of the union bound ``|X|`` (may be a huge exact integer such as ``C(n, k)^2``).
    constant : {"tight", "paper"}
        ``"paper"``: ``2 sqrt(2) R sqrt(log(6 t^2 |X| / (pi^2 delta)))`` (Soare, Lazaric,
        Munos 2014, Proposition 1, as used by Kuroki et al. 2020, Proposition 1).
        ``"tight"``: ``R sqrt(2 log(pi^2 t^2 |X| / (3 delta)))``. Derivation: for a fixed
        design, ``x . (theta_hat - theta)`` is sub-Gaussian with variance proxy
        ``R^2 ||x||^2_{A^-1}``, so a two-sided bound at level ``delta_t`` has radius
        ``R sqrt(2 log(2 / delta_t))``; a union over ``|X|`` directions and over ``t`` with
        ``delta_t = 6 delta / (pi^2 t^2 |X|)`` (these sum to ``delta``) gives the formula.

    Returns
    -------
    float
    """
    check_int("t", t, low=1)
    check_probability("delta", delta)
    check_real("noise_scale", noise_scale, low=0.0, low_inclusive=False)
    check_int("n_directions", n_directions, low=1)
    check_choice("constant", constant, CONFIDENCE_CONSTANTS)
    log_directions = math.log(n_directions)  # exact for huge Python integers
    if constant == "paper":
        log_term = math.log(6.0 * t * t / (math.pi ** 2 * delta)) + log_directions
        if log_term <= 0:
            raise InvalidParameterError(
                f"the paper's constant needs 6 t^2 |X| / (pi^2 delta) > 1; got t={t}, |X|={n_directions}, "
                f"delta={delta}: use constant='tight'")
        return 2.0 * math.sqrt(2.0) * noise_scale * math.sqrt(log_term)
    log_term = math.log(math.pi ** 2 * t * t / (3.0 * delta)) + log_directions
    return noise_scale * math.sqrt(2.0 * log_term)


@dataclass(frozen=True)
class LeastSquaresEstimate:
    """``theta_hat = A^-1 b`` with the Gram matrix ``A`` and its inverse ``A^-1``."""

    theta: np.ndarray
    gram: np.ndarray
    gram_inverse: np.ndarray
    pulls: int

    def width(self, x) -> float:
        """``||x||_{A^-1}``: the standard error of ``x . theta_hat`` in units of the noise scale."""
        x = np.asarray(x, dtype=float)
        return float(math.sqrt(max(x @ self.gram_inverse @ x, 0.0)))


class StaticDesign:
    """Counts and reward sums per member of a fixed support of super-arms.

    Parameters
    ----------
    n : int
        Number of single arms.
    support : sequence of super-arms
        The super-arms that may be pulled, each a sequence of arm indices.
    """

    def __init__(self, n: int, support):
        self.n = n
        self.support = tuple(tuple(int(i) for i in arm) for arm in support)
        if any(not 0 <= i < n for arm in self.support for i in arm):
            raise InvalidParameterError(f"support members must hold arm indices in 0..{n - 1}")
        self.matrix = np.zeros((len(self.support), n))
        for row, arm in enumerate(self.support):
            self.matrix[row, list(arm)] = 1.0
        self.counts = np.zeros(len(self.support), dtype=np.int64)
        self.reward_sums = np.zeros(len(self.support))
        self.pulls = 0

    def record(self, member: int, reward: float, count: int = 1) -> None:
        """The summed reward of ``count`` pulls of support member ``member``."""
        self.counts[member] += count
        self.reward_sums[member] += reward
        self.pulls += count

    def rank(self) -> int:
        """Rank of the super-arms pulled at least once."""
        pulled = self.matrix[self.counts > 0]
        return int(np.linalg.matrix_rank(pulled)) if pulled.size else 0

    def estimate(self) -> LeastSquaresEstimate:
        """Least squares from the pulls so far (Cholesky solves; no accumulated updates).

        Raises
        ------
        SingularDesignError
            If the pulled super-arms do not span R^n.
        """
        gram = self.matrix.T @ (self.counts[:, None] * self.matrix)
        b = self.matrix.T @ self.reward_sums
        # numpy only: mixing numpy's and scipy's BLAS thread pools in one loop made each
        # call several times slower (measured with benchmarks/bench_core.py).
        try:
            lower = np.linalg.cholesky(gram)
            # An exactly singular integer Gram matrix can factorise with a rounding-sized
            # pivot; min pivot^2 >= lambda_min(A), so a tiny pivot means rank < n.
            if np.min(np.diag(lower)) ** 2 <= SINGULAR_TOLERANCE * np.max(np.diag(gram)):
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            raise SingularDesignError(
                f"the pulled super-arms span rank {self.rank()} < n={self.n}: theta is not "
                "identifiable; pull every support member once with a support that spans R^n") from None
        lower_inverse = np.linalg.inv(lower)
        inverse = lower_inverse.T @ lower_inverse  # symmetric to rounding: A^-1 = L^-T L^-1
        inverse = (inverse + inverse.T) / 2.0  # exact symmetry keeps eigvalsh and the QP weights consistent
        theta = inverse @ b
        return LeastSquaresEstimate(theta=theta, gram=gram, gram_inverse=inverse, pulls=self.pulls)
