"""From a crowdsourcing data set to a simulated environment (data -> instance -> environment)."""

from __future__ import annotations

from fullbandit._validation import check_choice
from fullbandit.datasets import QuizData
from fullbandit.environments import BernoulliTeam, Environment, GaussianSum, Replay

REWARD_MODELS = ("bernoulli", "replay", "gaussian")


def team_environment(data: QuizData, reward_model: str = "bernoulli", *, feedback: str = "full",
                     seed=None, sigma: float = 1.0) -> Environment:
    """An environment whose arms are the workers of ``data`` and whose means are their accuracies.

    Parameters
    ----------
    data : QuizData
        A quiz data set (:func:`fullbandit.datasets.load_dataset`).
    reward_model : {"bernoulli", "replay", "gaussian"}
        ``"bernoulli"``: independent Bernoulli workers (:class:`BernoulliTeam`, sum noise
        scale ``sqrt(k)/2``); ``"replay"``: each pull replays one question of the real
        answer matrix (:class:`Replay`, dependent members, scale ``k/2``); ``"gaussian"``:
        accuracies plus ``N(0, sigma^2)`` on the sum (:class:`GaussianSum`, scale ``sigma``),
        the paper's synthetic noise.
    feedback : {"full", "semi"}
    seed : None, int, SeedSequence or Generator
    sigma : float
        Noise of the Gaussian model.
    """
    check_choice("reward_model", reward_model, REWARD_MODELS)
    labels = data.worker_ids
    if reward_model == "bernoulli":
        return BernoulliTeam(data.accuracies, feedback=feedback, seed=seed, labels=labels)
    if reward_model == "replay":
        return Replay(data.correct, feedback=feedback, seed=seed, labels=labels)
    return GaussianSum(data.accuracies, sigma=sigma, feedback=feedback, seed=seed, labels=labels)
