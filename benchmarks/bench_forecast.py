"""Does the forecast agree with a live campaign? ``plan``'s pulls against live sessions on the same workers.

A live campaign (``fullbandit session start ... --reward-range 0 k``, then ``next``/``record``)
on crowd workers whose team members all answer the same question needed 3.5-4.7x the pulls
that ``fullbandit plan``/``solve`` forecast for those workers: the forecast drew each member
independently (Bernoulli with its accuracy) and gave the algorithm the independent sum's
noise scale ``sqrt(k)/2``, while the campaign's members are correlated through the question
and its declared range gives the algorithm the scale ``k/2``.

On the first ``--workers`` workers of the embedded data set ``--dataset`` (default: 18 workers
of IT, the data set of the README's first command; every worker answered every question),
``k = 5``, algorithm ``phased``, epsilon ``--epsilon`` on the team's sum:

* **old forecast**: :func:`fullbandit.analysis.planning.plan` as it was, independent Bernoulli
  members, the model's own scale (``--forecast-runs`` runs, seeds ``SeedSequence([0, i])``);
* **independent + range**: the same members, with the session's declared range ``(0, k)``
  offered (which part of the gap the declaration alone explains);
* **new forecast**: ``plan(answers, k, reward_model="joint", reward_range=(0, k))``, the graded
  answers replayed with one question per team trial and the declared range (``--forecast-runs``);
* **live**: ``--runs`` campaigns through :class:`fullbandit.sessions.Session`, started with the same
  ``reward_range=(0, k)``, one ``next`` and one ``record`` per pull (a single operator), each
  reward the team's number of right answers to one question drawn from the real answers
  (:class:`fullbandit.environments.models.JointReplay`), until the stopping rule; seeds from a
  separate stream (``SeedSequence([LIVE_STREAM, i])``), so no live run repeats a forecast run.

A forecast run costs well under a second, a live one 10-30 s (two SQLite transactions per pull),
so the forecasts get more runs (default 60) than the live campaigns (default 20): the two-sample
tests below are valid for unequal sizes, and the forecast's quantiles are then sharper.
The forecast and live pulls are compared by medians, quartiles, the two-sample
Kolmogorov-Smirnov test and the Mann-Whitney U test (phased's pulls take few distinct values,
whole phases: both tests see ties, Mann-Whitney corrects for them, KS is then conservative).

Writes ``benchmarks/results/forecast.csv`` (one row per run), ``forecast_summary.csv`` (one row
per source, with the p-values against live) and ``forecast.png`` (ECDF and box plot of pulls).

Usage (from the repository root; the session stores go to a temporary folder, /dev/shm when
there is one: the numbers are pulls, not seconds):
    python benchmarks/bench_forecast.py [--runs 20] [--forecast-runs 60]
"""

from __future__ import annotations

import os

# One BLAS thread (set before numpy loads; the stopping checks pin it anyway, fullbandit.util.blas).
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

from fullbandit.analysis.planning import plan  # noqa: E402
from fullbandit.core.algorithm import ProtocolError  # noqa: E402
from fullbandit.datasets import load_dataset  # noqa: E402
from fullbandit.environments.models import JointReplay  # noqa: E402
from fullbandit.sessions import Session  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
#: The live campaigns' seed stream: SeedSequence([LIVE_STREAM, i]) for live run i (the plans use [seed, i]).
LIVE_STREAM = 2**31 - 1
SOURCES = ("old forecast", "independent + range", "new forecast", "live")


def instance(name: str, workers: int):
    """The first ``workers`` workers of the embedded data set ``name``: ``(answers, worker ids)``."""
    data = load_dataset(name)
    if not 2 <= workers <= data.n_workers:
        raise SystemExit(f"--workers must be between 2 and {data.n_workers} for {name}, got {workers}")
    return data.correct[:, :workers].astype(float), list(data.worker_ids[:workers])


def live_campaign(folder: Path, index: int, answers: np.ndarray, names: list[str], *, k: int, epsilon: float,
                  algorithm: str) -> dict:
    """One live session to its stopping rule: one ``next`` and one ``record`` per pull, rewards replayed jointly."""
    environment_seed, algorithm_seed = np.random.SeedSequence([LIVE_STREAM, index]).spawn(2)
    environment = JointReplay(answers, seed=environment_seed)
    path = folder / f"live-{index}.db"
    started = time.perf_counter()
    session = Session.start(path, algorithm=algorithm, workers=names, k=k, epsilon=epsilon, reward_range=(0, k),
                            seed=int(algorithm_seed.generate_state(1)[0]))
    try:
        while True:
            try:
                (pull,) = session.next()
            except ProtocolError:  # the session has stopped: it hands out no more pulls
                break
            session.record(pull.id, float(environment.pull(pull.arms, count=pull.count)))
        status = session.status()
    finally:
        session.close()
    path.unlink()
    best = set(np.argsort(-answers.mean(axis=0), kind="stable")[:k].tolist())
    team = status["best_team"] or []
    gap = answers.mean(axis=0)[sorted(best)].sum() - answers.mean(axis=0)[team].sum()
    return {"pulls": status["pulls"], "certified": status["rule_fired"], "epsilon_optimal": bool(gap <= epsilon),
            "seconds": time.perf_counter() - started}


def forecast_rows(source: str, result) -> list[dict]:
    (row,) = result.rows
    return [{"source": source, "run": index, "pulls": pulls, "certified": None, "epsilon_optimal": None,
             "seconds": row.mean_seconds} for index, pulls in enumerate(row.pulls)]


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    live = frame.loc[frame.source == "live", "pulls"].to_numpy()
    rows = []
    for source in SOURCES:
        pulls = frame.loc[frame.source == source, "pulls"].to_numpy()
        if pulls.size == 0:
            continue
        row = {"source": source, "runs": pulls.size, "q1": np.percentile(pulls, 25), "median": np.median(pulls),
               "q3": np.percentile(pulls, 75), "mean": pulls.mean(), "live_median_over_median": np.median(live)
               / np.median(pulls)}
        if source != "live":
            row["ks_p_vs_live"] = stats.ks_2samp(pulls, live).pvalue
            row["mann_whitney_p_vs_live"] = stats.mannwhitneyu(pulls, live, alternative="two-sided").pvalue
        rows.append(row)
    return pd.DataFrame(rows)


def figure(frame: pd.DataFrame, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sources = [source for source in SOURCES if (frame.source == source).any()]
    colours = dict(zip(SOURCES, ("tab:grey", "tab:orange", "tab:blue", "tab:red"), strict=True))
    fig, (ecdf, box) = plt.subplots(1, 2, figsize=(11, 4.2))
    for source in sources:
        pulls = np.sort(frame.loc[frame.source == source, "pulls"].to_numpy())
        ecdf.step(pulls, np.arange(1, pulls.size + 1) / pulls.size, where="post", label=source,
                  color=colours[source], linestyle="--" if source == "live" else "-")
    ecdf.set_xscale("log")
    ecdf.set_xlabel("pulls to the stopping rule (team trials)")
    ecdf.set_ylabel("fraction of runs")
    ecdf.legend(loc="center")
    box.boxplot([frame.loc[frame.source == source, "pulls"].to_numpy() for source in sources])
    box.set_xticks(range(1, len(sources) + 1), sources, rotation=15)
    box.set_yscale("log")
    box.set_ylabel("pulls")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="it", help="embedded data set (default: it)")
    parser.add_argument("--workers", type=int, default=18, help="its first WORKERS workers (default: 18)")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--epsilon", type=float, default=0.5, help="tolerance on the team's sum (default: 0.5, "
                                                                   "fullbandit solve's)")
    parser.add_argument("--algorithm", default="phased")
    parser.add_argument("--runs", type=int, default=20, help="live campaigns (default: 20)")
    parser.add_argument("--forecast-runs", type=int, default=60, help="runs of each forecast (default: 60)")
    parser.add_argument("--out", type=Path, default=RESULTS / "forecast.csv")
    args = parser.parse_args(argv)
    answers, names = instance(args.dataset, args.workers)
    accuracies = answers.mean(axis=0)
    common = {"epsilon": args.epsilon, "runs": args.forecast_runs, "algorithms": (args.algorithm,)}
    frames = []
    started = time.perf_counter()
    frames += forecast_rows("old forecast", plan(accuracies, args.k, **common))
    frames += forecast_rows("independent + range", plan(accuracies, args.k, reward_range=(0, args.k), **common))
    frames += forecast_rows("new forecast", plan(answers, args.k, reward_model="joint", reward_range=(0, args.k),
                                                 **common))
    print(f"forecasts: {time.perf_counter() - started:.1f} s")
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as folder:
        for index in range(args.runs):
            row = live_campaign(Path(folder), index, answers, names, k=args.k, epsilon=args.epsilon,
                                algorithm=args.algorithm)
            frames.append({"source": "live", "run": index, **row})
            print(f"live {index}: {row['pulls']} pulls, {row['seconds']:.1f} s", flush=True)
    frame = pd.DataFrame(frames)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False)
    table = summary(frame)
    table.to_csv(args.out.with_name(args.out.stem + "_summary.csv"), index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda value: f"{value:.4g}"))
    figure(frame, args.out.with_suffix(".png"),
           f"{args.algorithm}, {args.dataset.upper()} first {args.workers} workers, k={args.k}, "
           f"epsilon={args.epsilon:g}, declared range [0, {args.k}]: {args.forecast_runs} runs per forecast, "
           f"{args.runs} live")
    print(f"total {time.perf_counter() - started:.0f} s; wrote {args.out}, its summary and figure")


if __name__ == "__main__":
    main()
