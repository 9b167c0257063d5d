"""Algorithm options on the command line, generated from what each algorithm declares on its class.

Every constructor parameter of every registered algorithm (:mod:`fullbandit.core.registry`: the
built-in families and the ``fullbandit.algorithms`` entry points) is one option
``--<name-with-dashes>``, except ``problem`` (built from the question: ``--k``, ``--threshold``,
group caps) and ``seed`` (``--seed``). Nothing here names an algorithm or one of its
parameters: a third-party algorithm's parameters are options as soon as it is registered.

An option is read as text and converted with the *chosen* algorithm's declared constraints
(:mod:`fullbandit.core.params`), the first form that takes the text winning:

===================  ======================================================
declared form        text on the command line
===================  ======================================================
``Interval`` int     ``1000``, ``1_000_000`` or ``1e6``
``Interval`` float   ``0.05``, ``1e-3``
``Options``          one of its names
``Instance(bool)``   ``true`` or ``false`` (also ``yes``/``no``, ``1``/``0``)
``None``             ``none``
``REWARD_RANGE``     ``LOW,HIGH``, e.g. ``0,1``
``SUPERARMS``        a JSON list of super-arms, e.g. ``[[0,1],[1,2]]``
===================  ======================================================

An option's default is ``None``, "not given": the option is not passed, and the class's
default (its signature, :meth:`fullbandit.core.registry.AlgorithmSpec.defaults`) applies. No
default is written here. An option the chosen algorithm does not take is refused, naming the
options it takes; a value it cannot take is refused naming the option and what it takes.

The one deliberate exception is the *question* a user asks. ``--k``, ``--threshold`` and the
group caps are not algorithm parameters at all; ``fullbandit solve``'s ``--epsilon``, the
tolerance on the team's summed reward, is a parameter but belongs to the question too, and
keeps the question default ``solve`` gives it (``question=`` of :func:`add_algorithm_options`)
for every algorithm that takes an ``epsilon``.

Examples
--------
>>> import argparse
>>> from fullbandit.cli.options import add_algorithm_options
>>> from fullbandit.core import registry
>>> parser = argparse.ArgumentParser()
>>> options = add_algorithm_options(parser)
>>> args = parser.parse_args(["--delta", "0.1", "--restart-ratio", "0.25"])
>>> options.parameters(registry.get("phased"), args)
{'delta': 0.1, 'restart_ratio': 0.25}
>>> options.parameters(registry.get("sar"), args)
Traceback (most recent call last):
...
fullbandit.util.validation.InvalidParameterError: --delta does not apply to --algorithm sar; its options are \
--budget, --seed
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fullbandit.cli.main import CommandParser
from fullbandit.core import registry
from fullbandit.core.params import REWARD_RANGE, SEED, SUPERARMS, Instance, Interval, Options
from fullbandit.util.validation import InvalidParameterError

#: Constructor parameters that are no option: the decision problem (the question's options build
#: it) and the seed (``--seed``).
NOT_OPTIONS = ("problem", "seed")
#: The namespace attribute of the option for parameter ``name`` is ``DEST + name`` (apart from the
#: commands' own attributes, whatever an algorithm calls its parameters).
DEST = "algorithm parameter "
#: The option of a parameter whose ``--name`` a command already uses for its own option.
CLASH_PREFIX = "--param-"

TRUE = ("true", "yes", "1")
FALSE = ("false", "no", "0")


class _NotThisForm:
    """The text does not read as a value of this form."""


NOT_THIS_FORM = _NotThisForm()


def flag(name: str) -> str:
    """The option string of parameter ``name``: ``--`` and the name with dashes.

    >>> flag("restart_ratio")
    '--restart-ratio'
    """
    return "--" + name.replace("_", "-")


def algorithm_name(text: str) -> str:
    """``--algorithm``'s type: a registry name or an algorithm class's name, as its registry name.

    >>> algorithm_name("OptKG")
    'opt-kg'
    """
    try:
        return registry.get(text).name
    except InvalidParameterError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a registered algorithm nor the class of one; choose one "
                                         f"of {', '.join(registry.names())}") from None


def parameter_names(specs: Iterable[registry.AlgorithmSpec] | None = None) -> tuple[str, ...]:
    """Every parameter (but ``problem`` and ``seed``) of the registered algorithms (or ``specs``), sorted."""
    specs = registry.specs() if specs is None else tuple(specs)
    return tuple(sorted({name for spec in specs for name in spec.cls.parameter_names() if name not in NOT_OPTIONS}))


# --- one declared form: its text, its words ---------------------------------------------------
def _integer(text: str):
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return NOT_THIS_FORM
    return int(value) if math.isfinite(value) and value.is_integer() else NOT_THIS_FORM


def _real(text: str):
    try:
        return float(text)
    except ValueError:
        return NOT_THIS_FORM


def _boolean(text: str):
    word = text.strip().lower()
    return True if word in TRUE else False if word in FALSE else NOT_THIS_FORM


def _super_arms(text: str):
    try:
        value = json.loads(text)
    except ValueError:
        return NOT_THIS_FORM
    if not isinstance(value, list) or not all(isinstance(arm, list) for arm in value):
        return NOT_THIS_FORM
    return tuple(tuple(arm) for arm in value)


def _pair(text: str):
    parts = text.strip().strip("[]()").split(",")
    if len(parts) != 2:
        return NOT_THIS_FORM
    low, high = (_real(part) for part in parts)
    return NOT_THIS_FORM if low is NOT_THIS_FORM or high is NOT_THIS_FORM else (low, high)


def read(form, text: str):
    """``text`` as a value of the declared ``form``, or :data:`NOT_THIS_FORM` (not yet checked against its range).

    >>> from fullbandit.core.params import Interval
    >>> read(Interval(int, 1, None), "1e6"), read(None, "none"), read(Interval(float, 0, 1), "half") is NOT_THIS_FORM
    (1000000, None, True)
    """
    if form is None:
        return None if text.strip().lower() == "none" else NOT_THIS_FORM
    if isinstance(form, Interval):
        return _integer(text) if form.kind is int else _real(text)
    if isinstance(form, Options):
        return text.strip()
    if isinstance(form, Instance):
        for kind, reader in ((bool, _boolean), (int, _integer), (float, _real)):
            if kind in form.types:
                return reader(text)
        return text if str in form.types else NOT_THIS_FORM
    if form is SEED:
        return _integer(text)
    if form is SUPERARMS:
        return _super_arms(text)
    if form is REWARD_RANGE:
        return _pair(text)
    try:  # a form of a plug-in's own: JSON if the text is JSON, else the text
        return json.loads(text)
    except ValueError:
        return text


def accepts(form, value) -> bool:
    """Whether ``value`` satisfies the declared ``form`` (``None``: the value ``None``)."""
    return value is None if form is None else bool(form.accepts(value))


def describe(form) -> str:
    """What the command line takes for ``form``, in words a user can type.

    >>> from fullbandit.core.params import Options
    >>> describe(None), describe(Options({"tight", "paper"})), describe(REWARD_RANGE)
    ('none', 'one of paper, tight', 'LOW,HIGH with LOW < HIGH, e.g. 0,1')
    """
    if form is None:
        return "none"
    if isinstance(form, Options):
        return "one of " + ", ".join(sorted(form.values))
    if isinstance(form, Instance) and bool in form.types:
        return "true or false"
    if form is SEED:
        return "a non-negative int"
    if form is SUPERARMS:
        return "a JSON list of super-arms, e.g. [[0,1],[1,2]]"
    if form is REWARD_RANGE:
        return "LOW,HIGH with LOW < HIGH, e.g. 0,1"
    return str(form.describe())


def describe_forms(forms: Iterable) -> str:
    """The declared ``forms`` of one parameter, joined by "or"."""
    return " or ".join(describe(form) for form in forms)


def _metavar(forms: list) -> str:
    kinds = set()
    names = sorted({value for form in forms if isinstance(form, Options) for value in form.values})
    for form in forms:
        if form is None:
            continue
        if isinstance(form, Options):
            kinds.add("{" + ",".join(names) + "}")
        elif form is SEED or (isinstance(form, Interval) and form.kind is int):
            kinds.add("INT")
        elif isinstance(form, Interval):
            kinds.add("FLOAT")
        elif isinstance(form, Instance) and bool in form.types:
            kinds.add("{true,false}")
        elif form is REWARD_RANGE:
            kinds.add("LOW,HIGH")
        else:
            kinds.add("VALUE")
    return kinds.pop() if len(kinds) == 1 else "VALUE"


def convert(spec: registry.AlgorithmSpec, name: str, text: str, option: str | None = None):
    """``text``, given as ``option`` (default ``--name``), as a value ``spec`` declares for its parameter ``name``.

    Refused (:class:`InvalidParameterError`) naming the option, the text, the algorithm and
    what it takes.

    >>> from fullbandit.core import registry
    >>> convert(registry.get("icb"), "reward_range", "0,2"), convert(registry.get("icb"), "noise_scale", "none")
    ((0.0, 2.0), None)
    >>> convert(registry.get("phased"), "confidence", "paper")
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: --confidence=paper must be one of auto, stitched, tight, \
time-uniform for --algorithm phased
    """
    forms = spec.constraints(name)  # refuses a parameter spec does not take, naming its options
    for form in forms:
        value = read(form, text)
        if value is not NOT_THIS_FORM and accepts(form, value):
            return value
    raise InvalidParameterError(f"{option or flag(name)}={text} must be {describe_forms(forms)} for --algorithm "
                                f"{spec.name}")


def _shown(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:g}" if isinstance(value, float) else str(value)


def _grouped(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for key, name in pairs:
        groups.setdefault(key, []).append(name)
    return groups


def help_text(name: str, specs: Iterable[registry.AlgorithmSpec], question: Question | None = None) -> str:
    """The help of parameter ``name``'s option: what it takes, which algorithms take it, their defaults.

    For a ``question`` parameter, its meaning and the question's default instead of the classes'.
    """
    specs = tuple(specs)
    takers = [spec for spec in specs if name in spec.options]
    forms = _grouped((describe_forms(spec.constraints(name)), spec.name) for spec in takers)
    if len(forms) == 1:
        values = next(iter(forms))
    else:
        values = "; ".join(f"{text} ({', '.join(names)})" for text, names in forms.items())
    who = "every algorithm" if len(takers) == len(specs) else ", ".join(spec.name for spec in takers)
    defaults = _grouped((_shown(spec.defaults().get(name, "required")), spec.name) for spec in takers)
    if len(defaults) == 1:
        default = next(iter(defaults))
    else:
        default = "the algorithm's: " + "; ".join(f"{value} ({', '.join(names)})" for value, names in defaults.items())
    if question is not None:
        default = (f"{_shown(question.default)}, the question's, for every algorithm that takes it"
                   if question.default is not None else f"{question.derived}, for a team search")
    fixed = [f"{spec.name} fixes it to {_shown(spec.fixed[name])}" for spec in specs if name in spec.fixed]
    text = f"{question.meaning + ': ' if question else ''}{values}. For {who or 'no algorithm'}"
    if name == "budget":  # the shared vocabulary: what a budget counts depends on the feedback (budget_unit)
        units = _grouped((spec.budget_unit, spec.name) for spec in takers)
        text += "; it counts " + " or ".join(f"{unit} ({len(names)} algorithms)" for unit, names in units.items())
        text += ": team pulls for full-bandit feedback, single-arm samples for per-arm feedback"
    text += f" ({'; '.join(fixed)})" if fixed else ""
    return (text + f" (default: {default})").replace("%", "%%")


# --- the options of one command ---------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    """A parameter that belongs to the question a user asks: its default, and what it means."""

    default: Any
    meaning: str
    #: How a default the command derives (``default=None``) is chosen, for the help.
    derived: str = ""


@dataclass(frozen=True)
class AlgorithmOptions:
    """The generated options of one command: parameter name -> its option string (see the module docstring)."""

    flags: Mapping[str, str]
    question: Mapping[str, Question] = field(default_factory=dict)

    def given(self, args) -> dict[str, str]:
        """The parameters whose option was given on the command line, with their text."""
        return {name: getattr(args, DEST + name) for name in self.flags if getattr(args, DEST + name) is not None}

    def option(self, name: str) -> str:
        """The option string of parameter ``name`` in this command."""
        return self.flags.get(name, flag(name))

    def _offered(self, spec: registry.AlgorithmSpec) -> str:
        return ", ".join(self.option(name) for name in spec.options) or "none"

    def refuse_unknown(self, spec: registry.AlgorithmSpec, name: str, option: str | None = None):
        """The refusal of an option ``spec`` does not take (or fixes), naming the options it takes."""
        option = option or self.option(name)
        if name in spec.fixed:
            plain = [other.name for other in registry.specs() if other.cls is spec.cls and not other.fixed]
            instead = f"; choose --algorithm {plain[0]} to set it" if plain else ""
            return InvalidParameterError(f"{option} is fixed to {_shown(spec.fixed[name])} by --algorithm "
                                         f"{spec.name}{instead}")
        return InvalidParameterError(f"{option} does not apply to --algorithm {spec.name}; its options are "
                                     f"{self._offered(spec)}")

    def parameters(self, spec: registry.AlgorithmSpec, args, values: Mapping[str, tuple[Any, str]] | None = None
                   ) -> dict:
        """The parameters the command line sets for ``spec``: the options given, converted, and the question's.

        ``values`` maps a parameter to ``(value, option)``: a value a command computed from
        another option (e.g. ``--epsilon-per-member``), refused as that option if ``spec``
        does not take it. Question parameters not given take the question's default when
        ``spec`` takes them; every other parameter not given is left to the class. A
        parameter the class has no default for must be given.
        """
        parameters: dict[str, Any] = {}
        options, defaults = spec.options, spec.defaults()
        for name, question in self.question.items():
            if name in options and question.default is not None:  # None: the command derives it (``values``)
                parameters[name] = question.default
        for name, text in self.given(args).items():
            if name not in options:
                raise self.refuse_unknown(spec, name)
            parameters[name] = convert(spec, name, text, self.option(name))
        for name, (value, option) in (values or {}).items():
            if name not in options:
                raise self.refuse_unknown(spec, name, option)
            parameters[name] = value
        required = [name for name in options if name not in defaults and name not in parameters]
        if required:
            wanted = ", ".join(f"{self.option(name)} ({describe_forms(spec.constraints(name))})" for name in required)
            raise InvalidParameterError(f"--algorithm {spec.name} needs {wanted}")
        return parameters

    def shared(self, specs: Iterable[registry.AlgorithmSpec], args) -> dict:
        """The options given, for several algorithms at once (``fullbandit plan``).

        Each option is passed to every one of ``specs`` that takes it, and must be valid for
        each; an option none of them takes is refused.
        """
        specs = tuple(specs)
        parameters: dict[str, Any] = {}
        for name, text in self.given(args).items():
            takers = [spec for spec in specs if name in spec.options]
            if not takers:
                raise InvalidParameterError(f"{self.option(name)} applies to none of the algorithms "
                                            f"{', '.join(spec.name for spec in specs)}")
            try:
                parameters[name] = [convert(spec, name, text, self.option(name)) for spec in takers][0]
            except InvalidParameterError as error:
                raise InvalidParameterError(f"{error}, one of the algorithms it is passed to (every one that takes "
                                            "it)") from None
        return parameters


def add_algorithm_options(parser: argparse.ArgumentParser, *, question: Mapping[str, Question] | None = None,
                          exclude: Iterable[str] = ()) -> AlgorithmOptions:
    """Add an option per registered algorithm parameter to ``parser``; return them (also ``args.algorithm_options``).

    ``question``: parameters that belong to the question (their default when not given, see
    the module docstring); ``exclude``: parameters the command sets through options of its own.
    A parameter whose ``--name`` the command already uses is offered as ``--param-name``.

    On a :class:`fullbandit.cli.main.CommandParser` the options are added when ``parser`` is first
    used (they import every registered algorithm, which ``session record`` does without, though it
    builds the parser of ``session start``); the command adds its own options before, as the clash
    rule above needs anyway.
    """
    question, exclude = dict(question or {}), frozenset(exclude)
    flags: dict[str, str] = {}  # filled when the options are added, before any parse reads them
    options = AlgorithmOptions(flags, question)
    parser.set_defaults(algorithm_options=options)

    def add() -> None:
        specs = registry.specs()
        group = parser.add_argument_group(
            "algorithm parameters", "Generated from the algorithms' declarations; each is passed to the chosen "
                                    "algorithm only if it takes it, and an option it does not take is refused. Not "
                                    "given: the algorithm's own default.")
        for name in parameter_names(specs):
            if name in exclude:
                continue
            forms = [form for spec in specs if name in spec.options for form in spec.constraints(name)]
            metavar, help_ = _metavar(forms), help_text(name, specs, question.get(name))
            try:
                group.add_argument(flag(name), dest=DEST + name, default=None, metavar=metavar, help=help_)
                flags[name] = flag(name)
            except argparse.ArgumentError:  # the command's own option: the parameter gets a prefixed one
                flags[name] = CLASH_PREFIX + name.replace("_", "-")
                group.add_argument(flags[name], dest=DEST + name, default=None, metavar=metavar, help=help_)

    if isinstance(parser, CommandParser):
        parser.defer(add)
    else:
        add()
    return options
