"""run()'s wall-clock limit: its own stop reason, a resumable algorithm, clear errors."""

from __future__ import annotations

import pytest

import fullbandit as fb
from fullbandit.cli.main import main
from fullbandit.util.validation import InvalidParameterError

TIED = [1.0, 1.0, 1.0, 0.0, 0.0]  # k = 2 of three tied arms: with epsilon = 0 no rule can stop


def _never_stopping():
    algorithm = fb.ICB(fb.TopK(5, 2), epsilon=0.0, seed=0)
    return algorithm, fb.GaussianSum(TIED, sigma=0.3, seed=1)


def test_the_limit_ends_the_simulation_with_its_own_reason_and_the_algorithm_goes_on():
    algorithm, environment = _never_stopping()
    first = fb.run(algorithm, environment, progress=False, blocks=False, time_limit=0.2)
    assert first.stop_reason == "time limit" and not first.certified and not algorithm.done
    assert first.pulls > 0 and first.wall_time >= 0.2
    second = fb.run(algorithm, environment, progress=False, blocks=False, time_limit=0.1)
    assert second.stop_reason == "time limit" and second.pulls > first.pulls  # resumed, not restarted


def test_a_run_that_stops_first_keeps_its_own_reason():
    result = fb.run(fb.ICB(fb.TopK(5, 2), epsilon=0.1, seed=0), fb.GaussianSum([0.9, 0.8, 0.2, 0.1, 0.0], sigma=0.2,
                                                                             seed=1), progress=False, time_limit=60)
    assert result.stop_reason == "stopping rule" and result.certified


@pytest.mark.parametrize("limit", [0, -1.0, float("nan"), float("inf"), "1", True])
def test_a_bad_limit_is_refused_naming_it_and_nothing_runs(limit):
    algorithm, environment = _never_stopping()
    with pytest.raises(InvalidParameterError, match="time_limit"):
        fb.run(algorithm, environment, progress=False, time_limit=limit)
    assert algorithm.n_pulls == 0


def test_solve_time_limit_and_epsilon_per_member(capsys):
    # An adaptive algorithm (a pull at a time) with epsilon = 0: a static one draws its blocks up to
    # each check at once and reaches even a budget of 10^9 pulls within the limit.
    assert main(["solve", "--algorithm", "lucb", "--epsilon", "0", "--budget", "1000000000", "--time-limit", "0.3",
                 "--no-progress"]) == 0
    assert "stop reason   time limit" in capsys.readouterr().out
    assert main(["solve", "--k", "4", "--epsilon-per-member", "0.1", "--no-progress", "--json"]) == 0
    assert '"epsilon": 0.4' in capsys.readouterr().out
    assert main(["solve", "--epsilon", "0.5", "--epsilon-per-member", "0.05"]) == 2
    assert "--epsilon-per-member" in capsys.readouterr().err
