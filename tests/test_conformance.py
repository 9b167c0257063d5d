"""The conformance suite over every registered algorithm, and proof that it can fail."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm
from fullbandit.core.conformance import CHECKS
from fullbandit.core.registry import AlgorithmSpec
from fullbandit.full.icb import ICB


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
@pytest.mark.parametrize("spec", registry.specs(), ids=lambda spec: spec.name)
def test_registered_algorithm_conforms(spec, check):
    check(spec)


class CarelessICB(ICB):
    """ICB with the mistakes the suite exists to catch (each switched on by one flag)."""

    mistake = ""

    def _validate(self):
        if self.mistake != "skips validation":
            super()._validate()

    def tell(self, pull, reward, **moments):
        if self.mistake == "accepts double tells" and not self.done and getattr(pull, "id", None) not in self._pending:
            self._told += 1  # counts a reward for a pull that is not outstanding
            return
        super().tell(pull, reward, **moments)

    def _check_if_due(self):
        if self.mistake == "ignores the budget" and self._told >= self.budget:
            self.budget = self._told + 1  # writes a parameter and runs on
        super()._check_if_due()

    def _summary_of_record(self):
        if self.mistake == "trusts state files":
            return {"told": self._told}  # nothing else of where the run stands is checked against the replay
        return super()._summary_of_record()

    def _build(self, rng, noise_scale):
        if self.mistake == "draws without its seed":
            rng = np.random.default_rng()  # an unseeded generator draws the random support
        super()._build(rng, noise_scale)


def _careless(mistake: str) -> AlgorithmSpec:
    cls = type(f"CarelessICB_{mistake.replace(' ', '_')}", (CarelessICB,), {"mistake": mistake})
    return AlgorithmSpec("careless-icb", cls)


@pytest.mark.parametrize("mistake, failing_check", [
    ("skips validation", "check_invalid_parameters_are_refused"),
    ("accepts double tells", "check_protocol_misuse_is_refused"),
    ("ignores the budget", "check_budget_is_respected_exactly"),
    ("trusts state files", "check_corrupted_state_is_refused"),
    ("draws without its seed", "check_same_seed_same_run"),
])
def test_the_suite_rejects_a_broken_algorithm(mistake, failing_check):
    spec = _careless(mistake)
    check = next(c for c in CHECKS if c.__name__ == failing_check)
    with pytest.raises((AssertionError, ValueError, TypeError)):
        check(spec)


def test_the_careless_algorithm_without_mistakes_passes():
    # The negative controls above fail because of their mistake, not because of the subclass.
    spec = AlgorithmSpec("careless-icb", CarelessICB)
    for check in CHECKS:
        check(spec)


def test_every_registered_class_is_an_algorithm_with_declared_tags():
    for spec in registry.specs():
        assert issubclass(spec.cls, Algorithm)
        assert spec.feedback in ("full", "semi") and spec.setting in ("fixed-confidence", "fixed-budget")
        assert spec.guarantee in ("certified", "heuristic", "fixed-budget")


def test_registry_keys_agree_with_class_defaults():
    for spec in registry.specs():
        if not spec.fixed:
            assert spec.cls.name == spec.name, f"{spec.name} builds {spec.cls.__name__} whose name is {spec.cls.name}"
    assert registry.get("safoa").guarantee == "certified"
    assert registry.get("safoa-heuristic").guarantee == "heuristic"


_FINISH_IN_A_NEW_PROCESS = """
import json, sys
import fullbandit as fb
loaded = {name: fb.load(path) for name, path in json.loads(sys.argv[1]).items()}  # before any algorithm module
from fullbandit.core import registry
from fullbandit.core.conformance import _comparable, _drive, _environment
results = {}
for name, algorithm in loaded.items():
    environment = _environment(registry.get(name), seed=99)
    for pull in algorithm.pending:
        algorithm.tell(pull, environment.pull(pull.arms))
    _drive(algorithm, environment, max_count=1 << 30)
    results[name] = _comparable(algorithm.result())
print(json.dumps(results))
"""


@pytest.mark.slow
def test_every_saved_run_loads_and_finishes_identically_in_a_new_process(tmp_path):
    """A campaign saved with a pull outstanding is resumed by another process (where no algorithm
    module has been imported yet) and finishes exactly as it does here."""
    from fullbandit.core.conformance import _comparable, _drive, _environment, _make

    paths, expected = {}, {}
    for spec in registry.specs():
        algorithm = _make(spec)
        _drive(algorithm, _environment(spec), max_count=1, until=30)
        if not algorithm.done:
            algorithm.ask()
        paths[spec.name] = str(tmp_path / f"{spec.name}.json")
        algorithm.save(paths[spec.name])
        resumed, environment = Algorithm.load(paths[spec.name]), _environment(spec, seed=99)
        for pull in resumed.pending:
            resumed.tell(pull, environment.pull(pull.arms))
        _drive(resumed, environment, max_count=1 << 30)
        expected[spec.name] = json.loads(json.dumps(_comparable(resumed.result())))
    finished = subprocess.run([sys.executable, "-c", _FINISH_IN_A_NEW_PROCESS, json.dumps(paths)],
                              capture_output=True, text=True, timeout=600, cwd=Path(__file__).parent.parent)
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout) == expected
