"""When does a prior help? Paired runs of PhasedSwap with and without prior graded answers, on IT.

The campaign: the embedded IT accuracies as independent Bernoulli workers, k = 5, the default
epsilon (:func:`fullbandit.analysis.tolerance.default_epsilon`). The prior: a separate batch of
graded answers per worker, drawn from the same accuracies (a prior as good as a prior can be).
Each pair shares its seeds, so the ratio of pulls is the prior's effect alone.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_prior.py      # writes benchmarks/results/prior.csv

Measured (6 pairs per row; the campaign alone spends a median 2,560 answers per worker):
20 and 200 prior answers per worker: median 1.00x the pulls (best 1.00x); 1,000: 0.42x; 3,000: 0.25x.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import fullbandit as fb
from fullbandit.analysis.tolerance import default_epsilon
from fullbandit.core.priors import PriorObservations
from fullbandit.datasets import load_dataset
from fullbandit.datasets.crowd import CrowdTable

K, PAIRS, PRIOR_SIZES = 5, 6, (20, 200, 1000, 3000)


def main() -> None:
    data = load_dataset("it")
    accuracies = data.accuracies
    epsilon = default_epsilon(accuracies, K)
    rows = []
    for size in PRIOR_SIZES:
        for pair in range(PAIRS):
            draws, environment_seed, algorithm_seed = np.random.SeedSequence([size, pair]).spawn(3)
            graded = (np.random.default_rng(draws).random((size, accuracies.size)) < accuracies).astype(float)
            prior = PriorObservations.from_table(CrowdTable(data.worker_ids, tuple(f"h{i}" for i in range(size)),
                                                            graded), workers=data.worker_ids)
            pulls = [fb.run(fb.PhasedSwap(fb.TopK(accuracies.size, K), epsilon=epsilon, seed=algorithm_seed),
                            fb.BernoulliTeam(accuracies, seed=environment_seed), prior=given, progress=False).pulls
                     for given in (None, prior)]
            rows.append({"prior_answers_per_worker": size, "pair": pair, "cold_pulls": pulls[0], "warm_pulls": pulls[1],
                         "campaign_answers_per_worker": pulls[0] * K / accuracies.size})
    frame = pd.DataFrame(rows)
    frame["ratio"] = frame["warm_pulls"] / frame["cold_pulls"]
    out = Path(__file__).parent / "results" / "prior.csv"
    frame.to_csv(out, index=False)
    print(frame.groupby("prior_answers_per_worker").agg(median_ratio=("ratio", "median"), best=("ratio", "min"),
                                                       campaign_answers_per_worker=("campaign_answers_per_worker",
                                                                                    "median")))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
