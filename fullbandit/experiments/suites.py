"""Named benchmark suites for ``fullbandit bench``: each builds a grid and draws its figure.

Factories are module-level functions so that cells can travel to other processes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pandas as pd

from fullbandit.datasets.synthetic import kuroki_planted_gap
from fullbandit.environments.models import GaussianSum
from fullbandit.experiments.dks_suite import build_dks_grid, plot_dks, summarize_dks
from fullbandit.experiments.evaluations import Instance
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.plots import plot_error_rates, plot_metric
from fullbandit.full.saqm import SAQM
from fullbandit.problems.classes import TopK
from fullbandit.util.validation import check_choice


def summarize_identification(frame: pd.DataFrame) -> pd.DataFrame:
    """Runs, mean pulls, error rate and mean time per algorithm (and swept n or k)."""
    swept = [c for c in ("n", "k") if c in frame.columns and frame[c].nunique() > 1]
    return frame.groupby(["algorithm", *swept]).agg(
        runs=("pulls", "size"), mean_pulls=("pulls", "mean"), error_rate=("correct", lambda ok: 1 - ok.mean()),
        mean_seconds=("wall_time", "mean"))


@dataclass(frozen=True)
class Suite:
    """A named grid with its figure and summary table.

    ``build(runs)`` gives the grid; ``plot(frame, path)`` writes a PNG; ``summarize(frame)``
    gives the table ``fullbandit bench`` prints.
    """

    name: str
    description: str
    build: Callable[[int], Grid]
    plot: Callable[[pd.DataFrame, Path], None]
    default_runs: int
    summarize: Callable[[pd.DataFrame], pd.DataFrame] = summarize_identification
    #: ``claims(frame)``: the paper's statements about the figure, checked on the runs (optional).
    claims: Callable[[pd.DataFrame], pd.DataFrame] | None = None


def planted_gap_instance(rng, n: int, k: int, min_gap: float, sigma: float) -> Instance:
    """Kuroki et al. (2020), section 5: planted-gap means, Gaussian noise ``N(0, sigma^2)`` on the sum."""
    synthetic = kuroki_planted_gap(n, k, min_gap, seed=rng, shuffle=True)
    environment = GaussianSum(synthetic.means, sigma=sigma, seed=rng)
    return Instance(TopK(n, k), environment)


def saqm_factory(problem, seed, *, support: str, support_factor: int | None = None, epsilon: float = 0.0,
                 delta: float = 0.05, **options) -> SAQM:
    """SAQM with a support given as a kind and, for random supports, a size in multiples of n
    (capped at the number of super-arms)."""
    size = None if support_factor is None else min(support_factor * problem.n, problem.size)
    return SAQM(problem, epsilon=epsilon, delta=delta, support=support, support_size=size, seed=seed, **options)


def _support_grid(runs: int) -> Grid:
    algorithms = {
        "SAQM cyclic windows": Factory(partial(saqm_factory, support="cyclic")),
        "SAQM random n": Factory(partial(saqm_factory, support="random", support_factor=1)),
        "SAQM random 2n": Factory(partial(saqm_factory, support="random", support_factor=2)),
        "SAQM random 4n": Factory(partial(saqm_factory, support="random", support_factor=4)),
    }
    instances = {"planted gap": Factory(partial(planted_gap_instance, k=3, min_gap=0.2, sigma=0.2),
                                        {"n": [7, 10, 13, 16]})}
    return Grid(algorithms, instances, seeds=runs)


def _support_plot(frame: pd.DataFrame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    plot_metric(frame, "n", "pulls", ax=left, logy=True,
                title="SAQM sample complexity by support (k=3, gap 0.2, sigma 0.2)")
    plot_error_rates(frame, ax=right, delta=0.05, title="error rate (answer not optimal)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


SUITES: dict[str, Suite] = {
    "saqm-support": Suite(
        "saqm-support",
        "SAQM with a uniform allocation over cyclic windows vs random supports of n, 2n, 4n "
        "super-arms, on planted-gap instances (Kuroki et al. 2020, section 5): pulls against n, "
        "and error rates.",
        _support_grid, _support_plot, default_runs=20),
    "dks": Suite(
        "dks",
        "Densest-k-subgraph oracles (peeling, FPK, each with 1-swap local search) on networkx generators, "
        "classic graphs and the complete graphs of Algorithm 1; ratio to the exact optimum (brute force or "
        "MILP) or to the best certified upper bound, and time, for k in 5, 10, 20.",
        build_dks_grid, plot_dks, default_runs=3, summarize=summarize_dks),
}


def _register_reproductions() -> None:
    # Imported here: those modules import this one for Suite and the planted-gap factory.
    from fullbandit.experiments import kuroki_samples as samples
    SUITES["kuroki-samples"] = Suite(
        "kuroki-samples",
        "Kuroki et al. (2020), section 5, Figure 3 (right): pulls to stop against n (k = n/2, planted gap 0.5, "
        "N(0, 1) noise), SAQM, SA-FOA (heuristic, certified), ICB, Exhaustive, G-allocation.",
        samples._samples_grid, samples._samples_plot, default_runs=10)
    SUITES["kuroki-table2"] = Suite(
        "kuroki-table2",
        "Kuroki et al. (2020), Table 2: the six crowdsourcing data sets, k = 10, epsilon = 0.5, delta = 0.05, "
        "independent Bernoulli workers, uniform allocation; the paper's figures beside ours.",
        samples._table2_grid, samples._table2_plot, default_runs=3, summarize=samples.summarize_table2)
    from fullbandit.experiments.kuroki_approximation import RATIO_SUITE, TIME_SUITE
    SUITES[RATIO_SUITE.name] = RATIO_SUITE
    SUITES[TIME_SUITE.name] = TIME_SUITE
    SUITES["kuroki-modes"] = Suite(
        "kuroki-modes",
        "What the certified modes and the tighter confidence constant change: pulls of SAQM (theorem1 vs "
        "certified width), SA-FOA (heuristic vs certified) and ICB with the tight and the paper's constant.",
        samples._modes_grid, samples._modes_plot, default_runs=10, summarize=samples.summarize_modes)


def _register_efficiency() -> None:
    from fullbandit.experiments import efficiency
    SUITES["efficiency"] = Suite(
        "efficiency",
        "Pulls of every fixed-confidence full-bandit algorithm divided by the instance lower bound "
        "T*(theta) log(1/(2.4 delta)) (Soare et al. 2014; exact by enumeration), on planted-gap and random-mean "
        "instances, n = 8..14, k = 3, epsilon = 0.1, N(0, 0.25) noise; errors and budget hits beside.",
        efficiency.build_synthetic_grid, efficiency.plot_synthetic, default_runs=10,
        summarize=efficiency.summarize_synthetic)
    SUITES["efficiency-quiz"] = Suite(
        "efficiency-quiz",
        "Pulls of every fixed-confidence full-bandit algorithm divided by ICB's (same data set and seed) on the "
        "six quiz data sets, k = 10, epsilon = 0.5, delta = 0.05, Bernoulli workers; errors and budget hits.",
        efficiency.build_quiz_grid, efficiency.plot_quiz, default_runs=3, summarize=efficiency.summarize_quiz)


def _register_zhou() -> None:
    from fullbandit.experiments import zhou
    SUITES["zhou-fig1"] = Suite(
        "zhou-fig1",
        "Zhou, Chen, Li (2014), Figure 1: aggregate regret against K, n = 1000 Bernoulli arms with Unif[0, 1] or "
        "0.6/0.5 means, Q = 20n, 50n, 100n; OptMAI (beta 0.8, 0.9), SAR, LUCB, Uniform (those registered). "
        "The paper averages 100 runs per point and K = 10, 20, ..., 500; here fewer runs and K values. "
        "Paper's statement: Uniform performs the worst, OptMAI outperforms SAR and LUCB in most scenarios, and "
        "beta = 0.8 beats 0.9 for large K (0.9 for small K).",
        zhou.build_fig1_grid, zhou.plot_fig1, default_runs=5, summarize=zhou.summarize)
    SUITES["zhou-rte"] = Suite(
        "zhou-rte",
        "Zhou, Chen, Li (2014), Figure 2: the 164 RTE workers' accuracies as Bernoulli arms, Q = 10n, 20n, 50n, "
        "K = 10..100: regret, precision, and the samples per worker at Q = 10n, K = 20 (the paper: at most 48 "
        "for OptMAI, 143 for SAR, 17 for LUCB). Paper's statement: OptMAI with beta = 0.8 outperforms the others "
        "for most K and Q; SAR is best at K = 10, Q = 10n.",
        zhou.build_rte_grid, zhou.plot_rte, default_runs=100, summarize=zhou.summarize)


def _register_chen() -> None:
    from fullbandit.experiments import chen
    SUITES["chen-fig1-4"] = Suite(
        "chen-fig1-4",
        "Chen, Chen, Zhang, Zhou (2017), Figures 1-4: failure probability P(aggregate regret > 0.01) against the "
        "budget on TWOGROUP, SYNTHETIC-0.5, UNIFORM, SYNTHETIC-6 (n = 1000, K = 100, 250, 500, delta = 0.01): "
        "AdaptiveTopK (fixed budget), CLUCB-PAC, OptMAI. The paper runs 200 times per point; here fewer runs and "
        "budgets 10n, 30n, 100n (CLUCB-PAC: 10n, 30n). Paper's statement: AdaptiveTopK outperforms CLUCB-PAC on "
        "almost all data sets; OptMAI is best for small K, AdaptiveTopK for large K and on TWOGROUP.",
        chen.build_grid, chen.plot, default_runs=10, summarize=chen.summarize)


def _register_tao() -> None:
    from fullbandit.experiments import tao
    SUITES["tao-fig1"] = Suite(
        "tao-fig1",
        "Tao, Blanco, Peng, Zhou (2019), Figure 1: ln(aggregate regret / K) against the budget T on the three "
        "Bernoulli setups (threshold 0.5; T up to 1000, 40000, 100000): LSA(1.35), APT(0, .025, .05, .1), UCBE(-1, "
        "0, 4) with the true hardness, Opt-KG(1,1), Opt-KG(.5,.5), Uniform; runs advanced together as arrays in "
        f"batches of {tao.BATCH_RUNS}. The paper averages {tao.PAPER_RUNS} runs per point, as does the default "
        "(18 minutes with --jobs 2 on 2 cores; Opt-KG and UCBE take 87% of it). "
        "Paper's statement: LSA is best in Setup 1 (APT(.025), APT(.05) close) and clearly best in Setups 2 and 3 "
        "for almost all T.",
        tao.build_grid, tao.plot, default_runs=tao.DEFAULT_RUNS, summarize=tao.summarize, claims=tao.claims)


def _register_feedback_cost() -> None:
    from fullbandit.experiments import feedback_cost
    SUITES["feedback-cost"] = Suite(
        "feedback-cost",
        "What sum-only feedback costs: individual answers to an epsilon-optimal team (epsilon = 0.5 on the sum, "
        "delta = 0.05) for the certified full-bandit phased and swap against the certified per-arm adaptive-topk, "
        "lucb and clucb-pac, on the six quiz data sets (k = 10, Bernoulli workers) and a two-group instance.",
        feedback_cost.build_grid, feedback_cost.plot, default_runs=3, summarize=feedback_cost.summarize)


def _register_shahrampour() -> None:
    from fullbandit.experiments import shahrampour
    SUITES["shahrampour-fig2"] = Suite(
        "shahrampour-fig2",
        "Shahrampour and Tarokh, Figure 2: misidentification probability of the top M of K = 50 Bernoulli arms in "
        "the six setups of section IV-A, M = 2 and 4, budget ceil(H_1^(M)); NSAR (p = 0.7, 0.85, 1.1, 1.2, 1.3), "
        "SAR, AT-LUCB, Uniform; runs per bar (the paper: 4000) advanced together as arrays. Paper's statement: "
        "p < 1 beats SAR in setup 1 (where AT-LUCB is better still); in setups 2, 3, 6 NSAR with p > 1 is as "
        "good as SAR and AT-LUCB (beats at least one); in setup 4 p > 1 beats SAR; in setup 5 p > 1 beats SAR "
        "and AT-LUCB; Uniform is worst everywhere.",
        shahrampour.build_fig2_grid, shahrampour.plot_fig2, default_runs=shahrampour.FIG2_RUNS,
        summarize=shahrampour.summarize, claims=shahrampour.fig2_claims)
    SUITES["shahrampour-fig3"] = Suite(
        "shahrampour-fig3",
        "Shahrampour and Tarokh, Figure 3: the New Yorker caption contest 559 (138 captions, votes as rewards 0, "
        "0.5, 1), the top 2; misidentification against the budget (ours: 5,000 to 80,000, about 0.5 to 8 times "
        "H_1 = 10,876; the paper's are not in its text), runs per point (the paper: 1000). Needs the shared raw "
        "data (not shipped: no licence found). Paper's statement: NSAR with p = 0.85 beats SAR and AT-LUCB; "
        "p = 1.1 does not beat SAR; Uniform is worse by orders of magnitude.",
        shahrampour.build_fig3_grid, shahrampour.plot_fig3, default_runs=shahrampour.FIG3_RUNS,
        summarize=shahrampour.summarize, claims=shahrampour.fig3_claims)


def get_suite(name: str) -> Suite:
    """The suite called ``name`` (see :data:`SUITES`)."""
    if "kuroki-table2" not in SUITES:
        _register_reproductions()
        _register_efficiency()
        _register_zhou()
        _register_chen()
        _register_feedback_cost()
        _register_tao()
        _register_shahrampour()
    return SUITES[check_choice("suite", name, tuple(SUITES))]
