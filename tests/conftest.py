"""Fixtures shared by several test modules."""

import pytest

from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm


@pytest.fixture
def built(monkeypatch) -> list[Algorithm]:
    """Every algorithm a registry entry builds during the test."""
    algorithms: list[Algorithm] = []
    original = registry.AlgorithmSpec.build

    def build(self, problem, **parameters):
        algorithm = original(self, problem, **parameters)
        algorithms.append(algorithm)
        return algorithm

    monkeypatch.setattr(registry.AlgorithmSpec, "build", build)
    return algorithms
