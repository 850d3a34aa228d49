"""Compose the Hydra config tree and validate it into :class:`~cosci.config.schema.CosciConfig`.

The only module besides the entry point that touches Hydra. ``compose`` is used where there is no Hydra app
(tests, Prefect deployments, ``cosci resume``); the entry point composes through ``@hydra.main`` and calls
``validate`` on the result. Every failure becomes a :class:`ConfigError` whose message is one line naming the
offending key and the rule.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cosci.config.catalogue import (
    Catalogue,
    CatalogueError,
    catalogue,
    check_lifecycle,
    fill_tiers,
    lifecycle_warnings,
    missing_line,
    today,
    who_classifies,
)
from cosci.config.layers import LayerError, layer_of, layer_overrides, layered, naming_file
from cosci.config.measured import Heldout, MeasuredError, current_heldout, marked_because, unmeasured_line
from cosci.config.renames import old_key_in, old_override
from cosci.config.schema import CosciConfig, ModelEntry
from cosci.paths import conf_dir
from cosci.text import one_line, shown_path, unreadable_path

if TYPE_CHECKING:
    from omegaconf import DictConfig


from cosci.config.errors import ConfigError, unknown_key_line
from cosci.config.errors import hydra_one_line as hydra_one_line  # re-exported: the entry point names it here
from cosci.config.goal import (  # GOAL_MAX_CHARS re-exported: the CLI's refusal and its tests name it here
    GOAL_MAX_CHARS as GOAL_MAX_CHARS,
)
from cosci.config.goal import check_goal, check_goal_length, read_session_goal

_HYDRA_LOCK = threading.Lock()


GOAL_QUOTING = (
    "a goal is prose: put it in a file and pass session.goal_file=PATH, or use `cosci run --goal \"...\"`; "
    "on the Hydra command line quote the whole override and the value: 'session.goal=\"...\"' (no apostrophes)"
)
"""How to pass a goal Hydra's override grammar cannot read (commas, parentheses, '?', '&', accents: the shell has
already removed the quotes)."""


def with_goal_hint(message: str, overrides: Sequence[str]) -> str:
    """The line for a Hydra error over ``overrides``: when one override is not in Hydra's override grammar, the
    :func:`grammar_line` of the first such (a parse error, "LexerNoViableAltException: … ^" or "no viable
    alternative at input …", names a token and a caret, not the override or how to write it); else ``message``,
    plus :data:`GOAL_QUOTING` when an override sets ``session.goal``."""
    if (bad := unparsable(overrides)) is not None:
        return grammar_line(*bad)
    if any(o.lstrip("+~").startswith("session.goal=") for o in overrides):
        return f"{message} ({GOAL_QUOTING})"
    return message


def unparsable(overrides: Sequence[str]) -> tuple[str, str] | None:
    """The first override Hydra's override grammar rejects on its own, with Hydra's message; None when each
    parses."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    for override in overrides:
        try:
            parser.parse_overrides([override])
        except HydraException as exc:
            return override, str(exc)
    return None


LEXER_ERROR = "LexerNoViableAltException: "
"""How Hydra's message for a character its grammar cannot read begins (the override follows, a caret under the
character on the next line)."""


def grammar_line(override: str, message: str) -> str:
    """One line for ``override``, which Hydra's override grammar rejected with ``message``: the override, what could
    not be read (the character under Hydra's caret, or the parser's words), and how to quote the value (in single
    quotes for the shell, the value in double quotes for Hydra: ``'session.project="bad name!"'``; a value with an
    apostrophe the other way round)."""
    lines = message.splitlines()
    detail = ""
    if lines and lines[0].startswith(LEXER_ERROR) and len(lines) > 1 and "^" in lines[1]:
        at = lines[1].index("^") - len(LEXER_ERROR)
        if 0 <= at < len(override):
            detail = f"{override[at]!r} at character {at + 1} cannot stand unquoted"
    else:
        detail = one_line(" ".join(ln for ln in lines[1:] if not ln.startswith("See https://")))
    key, equals, value = override.partition("=")
    if key.lstrip("+~") == "session.goal":  # prose: the usual grammar error, and a file takes any text
        how = GOAL_QUOTING
    elif equals and '"' not in value and "'" not in value:
        how = f"quote the value: '{key}=\"{value}\"' (the whole override in single quotes for the shell)"
    elif equals and '"' not in value:  # an apostrophe: double quotes for the shell, escaped ones for Hydra
        how = f"quote the value: \"{key}=\\\"{value}\\\"\" (the whole override in double quotes for the shell)"
    else:
        how = ("quote the value for Hydra (key=\"...\" or key='...', the other kind of quote inside) and the whole "
               "override for the shell")
    return f"override {override!r} is not in Hydra's override grammar ({detail or 'it cannot be parsed'}); {how}"


TIER_FACT = re.compile(rf"^models\.tiers\.[A-Za-z0-9_]+\.({'|'.join(ModelEntry.model_fields)})=")
"""An override of one fact of a tier (``models.tiers.strong.output_tokens_per_second=20``)."""


def tier_facts_settable(overrides: Sequence[str]) -> list[str]:
    """``overrides`` with each plain override of a tier fact made an add-or-set one (``++``): a preset names only
    the model and the catalogue fills the facts after composition (design.md#catalogue), so the key a researcher
    overrides is usually not in the composed tree, where Hydra would refuse it as unknown."""
    return [f"++{o}" if TIER_FACT.match(o) else o for o in overrides]


def hydra_argv(argv: Sequence[str]) -> list[str]:
    """The command line ``@hydra.main`` parses for ``python -m cosci.run ARGV``: Hydra's flags as given, then the
    layer files' overrides under the command line's (:func:`cosci.config.layers.layered`), a tier fact made
    settable (:func:`tier_facts_settable`).

    Hydra's flags may stand anywhere in ``argv`` (``models=fake --cfg job k=v``); they come first in the result,
    as Hydra's own parser needs them. With ``--help``/``--hydra-help`` a layer file that cannot be used is left out,
    so the help is printed rather than the file's error.

    Raises:
        ConfigError: a layer file that cannot be used (one line naming it).
    """
    from hydra._internal.utils import get_args_parser

    args = get_args_parser().parse_intermixed_args(list(argv))
    given = list(args.overrides)
    flags = list(argv)
    for override in given:
        flags.remove(override)
    try:
        return [*flags, *tier_facts_settable(layered(given))]
    except LayerError as exc:
        if args.help or args.hydra_help:
            return [*flags, *tier_facts_settable(given)]
        raise ConfigError(str(exc)) from None


def compose(overrides: Sequence[str] = ()) -> DictConfig:
    """Compose ``conf/config.yaml`` with Hydra overrides, outside a Hydra app, over the layer files (the user's
    ``~/.config/cosci/config.yaml`` and the project's ``./cosci.yaml``, :mod:`cosci.config.layers`).

    Args:
        overrides: Hydra override strings, e.g. ``["experiment=demo", "models=fake"]``.

    Returns:
        The composed config (the ``hydra`` node excluded).

    Raises:
        ConfigError: an unknown key, an unknown group option, a malformed override, or a key renamed or removed
            (:mod:`cosci.config.renames`: the line names the new key); from a layer file, the line names the file
            (and a secret written in one is refused, :func:`cosci.config.layers.read_layer`).
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    if message := old_override(overrides):
        raise ConfigError(message)
    try:  # the user's and the project's files, under the command line (cosci/config/layers.py)
        layers = layer_overrides(overrides)
    except LayerError as exc:
        raise ConfigError(str(exc)) from None
    for override in overrides:  # bytes that are not UTF-8 reach no parser, store or line printed (design.md#cli)
        key, _, value = override.partition("=")
        if why := unreadable_path(key.lstrip("+~"), value.strip("'\"")):
            raise ConfigError(why if key.endswith(("_file", "_dir", "path")) else
                              f"{key.lstrip('+~')}: {shown_path(value)} is not valid UTF-8; retype it")
    with _HYDRA_LOCK:  # GlobalHydra is one per process: two threads composing at once raised ValueError
        GlobalHydra.instance().clear()
        try:
            with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
                return hydra_compose(config_name="config",
                                     overrides=tier_facts_settable([*(o for _, _, o in layers), *overrides]))
        except (HydraException, OmegaConfBaseException) as exc:
            raise ConfigError(naming_file(with_goal_hint(hydra_one_line(str(exc)), overrides), layers)) from None
        finally:
            GlobalHydra.instance().clear()


def _loc(err: Mapping[str, Any]) -> str:
    parts = [str(p) for p in err.get("loc", ())]
    return ".".join(parts) or "config"


def _container(cfg: DictConfig | Mapping[str, Any]) -> dict[str, Any]:
    """``cfg`` as plain data, its interpolations resolved (OmegaConf imported here: a command validating a stopped
    session's plain snapshot imports no Hydra, design.md#startup).

    Raises:
        ConfigError: an interpolation that cannot be resolved (one line naming its key).
    """
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        data = OmegaConf.to_container(cfg, resolve=True) if isinstance(cfg, DictConfig) else dict(cfg)
    except OmegaConfBaseException as exc:
        key = getattr(exc, "full_key", None) or "config"
        raise ConfigError(f"{key}: {hydra_one_line(str(exc)).split(' full_key:')[0]}") from None
    assert isinstance(data, dict)
    return data  # type: ignore[return-value]


def validate(cfg: DictConfig | Mapping[str, Any], *, require_goal: bool = False, on: dt.date | None = None,
             book: Catalogue | None = None, lifecycle: bool = True, frozen: bool = False,
             heldout: Heldout | None = None, tools: bool = True) -> CosciConfig:
    """Validate a composed config into :class:`CosciConfig`.

    Args:
        cfg: the composed config (``DictConfig``) or the same as plain data.
        require_goal: also require ``session.goal`` (a new session cannot start without one; a resumed session
            has its goal in its store). ``session.goal_file``, if set, is read here and its text
            replaces ``session.goal``.
        on: the date the lifecycle rule is applied on (tests pass one; None: :func:`~cosci.config.catalogue.today`).
        book: the model catalogue (tests pass one; None: ``conf/catalogue/``). Each tier's missing facts come from
            its model's entry (:func:`~cosci.config.catalogue.fill_tiers`), and a tier whose model is past its
            shutdown date refuses the config (design.md#catalogue).
        lifecycle: apply that refusal (False for a stopped session's frozen config read by commands that call no
            model: `cosci rate`, `cosci result`, `cosci status` must still read a session whose model has retired).
        frozen: a stopped session's snapshot: a tier that may no longer decide safety verdicts is marked unable to
            classify, not refused (:func:`~cosci.config.catalogue.who_classifies`).
        heldout: the held-out set measurements must be on (tests pass one; None: ``conf/safety_heldout.json``).
        tools: refuse a tool name no module or installed plugin declares (False for a stopped session's frozen
            config read by commands that call no tool: a session made with a plugin's tool is still rated after
            the plugin is removed; design.md#tools).

    Raises:
        ConfigError: one line, ``"<key>: <rule>"``, for the first violation.
    """
    data = dict(cfg) if isinstance(cfg, dict) else _container(cfg)
    assert isinstance(data, dict)
    data.pop("hydra", None)
    if message := old_key_in(data):  # an experiment file or a `+key=` override still using an old key
        raise ConfigError(message)
    goal_key = read_session_goal(data.get("session"))
    book = book or catalogue()
    with_catalogue_facts(data, book, heldout, frozen=frozen)
    try:
        config = CosciConfig.model_validate(data, context={"tools": tools, "frozen": frozen})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc, msg = _loc(err), err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = unknown_key_line(loc).removeprefix(f"{loc}: ")  # the line every door gives (design.md#cli)
        elif err["type"] == "missing":
            msg = missing_line(tuple(err.get("loc") or ()), data, book)
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        line = f"{loc}: {msg}" if err.get("loc") else msg  # whole-config rules name their keys themselves
        if not frozen and (layer := layer_of(loc)) is not None:  # a value a layer file gave
            line = f"{layer}: {line}"
        raise ConfigError(f"{line}{more}") from None
    if lifecycle:
        refuse_retired(config, book, on or today())
    if require_goal and not config.session.resume:
        check_goal(config.session.goal or "", goal_key, stored=frozen)
    else:
        check_goal_length(config.session.goal or "", goal_key)  # `cosci estimate` would price it
    return config


def with_catalogue_facts(data: dict[Any, Any], book: Catalogue, heldout: Heldout | None = None, *,
                         frozen: bool = False) -> None:
    """Fill, in place, each tier's absent facts from the catalogue (:func:`~cosci.config.catalogue.fill_tiers`),
    then mark each tier that may not decide safety verdicts (:func:`~cosci.config.catalogue.who_classifies`,
    design.md#safety-measured; ``heldout`` None: ``conf/safety_heldout.json``).

    Raises:
        ConfigError: a tier set able to classify whose model may not (one line), or the held-out record unreadable.
    """
    if not isinstance(data.get("models"), dict):
        return
    tiers = data["models"].get("tiers")
    if tiers is not None and not (isinstance(tiers, dict) and all(isinstance(t, dict) for t in tiers.values())):
        return  # `models.tiers=local` (a string): the config's own validation names the key in one line
    try:
        data["models"] = who_classifies(fill_tiers(data["models"], book), book, heldout or current_heldout(),
                                        frozen=frozen)
    except (CatalogueError, MeasuredError) as exc:
        raise ConfigError(str(exc)) from None


def refuse_retired(config: CosciConfig, book: Catalogue, on: dt.date) -> None:
    """:func:`~cosci.config.catalogue.check_lifecycle` over the config's tiers, as a :class:`ConfigError`."""
    try:
        check_lifecycle({t: e.model for t, e in config.models.tiers.items()}, book, on)
    except CatalogueError as exc:
        raise ConfigError(str(exc)) from None


def lifecycle_lines(configs: Sequence[CosciConfig], *, on: dt.date | None = None,
                    book: Catalogue | None = None) -> list[str]:
    """The warning lines of the models ``configs`` route to that shut down within 30 days (one per model, however
    many jobs or tiers name it; design.md#catalogue). ``cosci run``, ``python -m cosci.run`` and ``cosci check``
    print them to stderr."""
    tiers = {f"{i}.{t}": e.model for i, c in enumerate(configs) for t, e in c.models.tiers.items()}
    return lifecycle_warnings(tiers, book or catalogue(), on or today())


def classifier_lines(configs: Sequence[CosciConfig], *, marked: bool = False) -> list[str]:
    """One line per (tier, model) the safety classifier of ``configs`` routes to that the measurement rule marked
    unable to classify, saying why (design.md#safety-measured); ``cosci run``, ``python -m cosci.run`` and
    ``cosci check`` print them to stderr. A tier its preset marks (the embedded model, the fake) says nothing, unless
    ``marked`` (``cosci check``: every tier the offline screen decides for is named, ``measured.marked_because``)."""
    lines: list[str] = []
    for config in configs:
        if config.safety is None or not config.safety.enabled or "safety" not in config.agents:
            continue
        tier = config.tier_of("safety", "classify")
        entry = config.models.tiers[tier]
        because = entry.unable_because or ""
        if marked and entry.unable_to_classify and not because:
            found = catalogue().entry(entry.model)
            because = marked_because(found.classifier if found else None, entry.model, current_heldout())
        line = unmeasured_line(tier, entry.model, because)
        if because and line not in lines:
            lines.append(line)
    return lines

