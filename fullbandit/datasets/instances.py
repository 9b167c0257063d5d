"""From a crowdsourcing data set to a simulated environment (data -> instance -> environment)."""

from __future__ import annotations

from fullbandit.datasets import QuizData
from fullbandit.environments.models import BernoulliTeam, Environment, GaussianArms, GaussianSum, Replay
from fullbandit.util.validation import check_choice

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
        the paper's synthetic noise; with ``feedback="semi"``, ``N(0, sigma^2)`` on each
        worker (:class:`GaussianArms`), so that per-arm algorithms, which sample any
        number of workers at once, see each worker's law unchanged.
    feedback : {"full", "semi"}
        What a pull returns: the team's summed reward, or each member's.
    seed : None, int, SeedSequence or Generator
        Source of the environment's randomness.
    sigma : float
        Noise of the Gaussian model.

    Returns
    -------
    Environment
        :class:`BernoulliTeam`, :class:`Replay` or :class:`GaussianSum`, with the workers'
        ids as arm labels.

    Examples
    --------
    >>> from fullbandit.datasets import load_dataset
    >>> from fullbandit.datasets.instances import team_environment
    >>> data = load_dataset("it")
    >>> environment = team_environment(data, seed=0)
    >>> type(environment).__name__, data.n_workers
    ('BernoulliTeam', 36)
    >>> bool((environment.means == data.accuracies).all())
    True
    >>> round(environment.noise_scale(10), 6)  # sqrt(k) / 2 for k = 10 independent workers
    1.581139
    >>> team_environment(data, "replay", seed=0).noise_scale(10)  # dependent members: k / 2
    5.0
    """
    check_choice("reward_model", reward_model, REWARD_MODELS)
    labels = data.worker_ids
    if reward_model == "bernoulli":
        return BernoulliTeam(data.accuracies, feedback=feedback, seed=seed, labels=labels)
    if reward_model == "replay":
        return Replay(data.correct, feedback=feedback, seed=seed, labels=labels)
    if feedback == "semi":
        return GaussianArms(data.accuracies, sigma=sigma, feedback=feedback, seed=seed, labels=labels)
    return GaussianSum(data.accuracies, sigma=sigma, feedback=feedback, seed=seed, labels=labels)
