"""The model catalogue: per-model facts as data, one YAML file per provider under ``conf/catalogue/``, and the files
``cosci.catalogues`` plugins add (docs/design.md#catalogue, docs/plugins.md).

A preset (``conf/models/<name>.yaml``) assigns models to tiers; every fact about a model (provider route, thinking
form and levels, context window, output cap, cache minimum, prices, speed, release and deprecation/shutdown dates
with their source, its measurement as a safety classifier) lives once, here. :func:`fill_tiers` copies an entry's
tier facts into each tier that names its model, a value the preset (or an override) sets winning; a fact the
catalogue leaves out is LiteLLM's (its price map fills prices and context windows). :func:`who_classifies` marks a
tier whose model may not decide safety verdicts (docs/design.md#safety-measured).

Lifecycle (docs/design.md#catalogue): a tier whose model is past its shutdown date refuses the session in one line
naming the model, the date and the replacement (:func:`check_lifecycle`); within :data:`WARN_DAYS` of it,
:func:`lifecycle_warnings` gives one line per model. Both take ``today`` so that tests never depend on the clock.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cosci import parsed
from cosci.config.measured import ClassifierMeasurement, Heldout, scripted, shortfall
from cosci.config.thinking import Effort, ThinkingForm
from cosci.plugins import CATALOGUES, folders, skip

WARN_DAYS = 30
"""A model this many days or fewer from its shutdown date is warned about by ``cosci run`` and ``cosci check``."""

TIER_FACTS = ("thinking", "lowest_effort", "min_thinking_tokens", "output_tokens_per_second", "api_key_env",
              "api_base", "input_usd_per_mtok", "output_usd_per_mtok", "typical_output_tokens", "batch",
              "cache_min_tokens", "context_window")
"""The catalogue facts a tier takes (the rest, dates and sources, stay in the catalogue)."""


class Source(BaseModel):
    """Where an entry's facts were read: the page and the day (ISO date)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(min_length=8)
    read: dt.date


class CatalogueEntry(BaseModel):
    """One model's facts. Prices USD per 1M tokens; token counts in tokens; speed in tokens/s."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    route: Literal["chat", "responses"] = Field(
        default="chat", description="The provider endpoint its tool calls with reasoning need: responses for "
        "OpenAI's GPT-5.4+ (LiteLLM bridges chat calls with function tools and reasoning there itself).")
    thinking: ThinkingForm
    lowest_effort: Effort | None = None
    min_thinking_tokens: int | None = Field(default=None, ge=0)
    context_window: int | None = Field(default=None, gt=0)
    output_cap: int | None = Field(default=None, gt=0)
    cache_min_tokens: int | None = Field(default=None, gt=0)
    input_usd_per_mtok: float | None = Field(default=None, ge=0, le=10_000)
    output_usd_per_mtok: float | None = Field(default=None, ge=0, le=10_000)
    output_tokens_per_second: float | None = Field(default=None, gt=0)
    typical_output_tokens: int | None = Field(default=None, gt=0)
    forced_tool_use: bool = Field(default=True, description="The model accepts a named tool_choice; cosci's record "
                                  "calls may force one, so a tier naming a model that refuses it is refused.")
    classifier: ClassifierMeasurement | None = Field(
        default=None, description="The model measured as the safety classifier on the held-out part (python -m "
        "bench.safety_tiers); a tier decides safety verdicts only with one no worse than the offline screen's "
        "(docs/design.md#safety-measured).")
    batch: bool | None = None
    api_key_env: str | None = None
    api_base: str | None = None
    released: dt.date | None = None
    deprecated: dt.date | None = None
    shutdown: dt.date | None = None
    replacement: str | None = None
    source: Source


class ProviderFile(BaseModel):
    """One ``conf/catalogue/<provider>.yaml``: the provider's host and key variable, and its models."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: str
    host: str
    api_key_env: str | None = None
    models: dict[str, CatalogueEntry]


class Catalogue(BaseModel):
    """Every provider file: its models by model string (``entries``), its host by provider prefix (``hosts``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entries: dict[str, CatalogueEntry]
    hosts: dict[str, str]

    def entry(self, model: str) -> CatalogueEntry | None:
        """The entry of ``model``, or of the model a dated snapshot id names (``...-4-5-20250929`` -> ``...-4-5``):
        a snapshot shuts down with its model."""
        return self.entries.get(model) or self.entries.get(re.sub(r"-20\d{6}$", "", model))

    def host(self, model: str) -> str | None:
        """The host a model string's provider answers on (``api.anthropic.com``); None when unknown."""
        return self.hosts.get(model.split("/", 1)[0])


class CatalogueError(ValueError):
    """A catalogue file that cannot be read or validated; ``str`` is one line naming the file and key."""


def today() -> dt.date:
    """The date the lifecycle rules are applied on: the local date (tests replace this function)."""
    return dt.date.today()


def catalogue_dir() -> Path:
    from cosci.paths import conf_dir

    return Path(conf_dir()) / "catalogue"


def read_catalogue(folder: Path) -> Catalogue:
    """Every ``*.yaml`` under ``folder`` as one :class:`Catalogue`.

    Raises:
        CatalogueError: a file is not YAML, breaks the schema, or names a model another file names.
    """
    entries: dict[str, CatalogueEntry] = {}
    hosts: dict[str, str] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = ProviderFile.model_validate(parsed.load(path))  # parsed once per text (design.md#startup)
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise CatalogueError(f"{path}: cannot read ({type(exc).__name__})") from None
        except ValidationError as exc:
            err = exc.errors()[0]
            raise CatalogueError(f"{path}: {'.'.join(str(p) for p in err['loc'])}: {err['msg']}") from None
        for model, entry in data.models.items():
            if model in entries:
                raise CatalogueError(f"{path}: {model} is already in another catalogue file")
            if entry.api_key_env is None and data.api_key_env:
                entry = entry.model_copy(update={"api_key_env": data.api_key_env})
            entries[model] = entry
            prefix = model.split("/", 1)[0]
            hosts.setdefault(prefix, data.host)
    return Catalogue(entries=entries, hosts=hosts)


@cache
def catalogue() -> Catalogue:
    """The shipped catalogue (``conf/catalogue/``) and every ``cosci.catalogues`` plugin's files, read once per
    process (docs/plugins.md "Adding a model catalogue"). A plugin whose files cannot be read, break the schema or
    name a model already catalogued is skipped with one warning line naming it (the shipped facts never change)."""
    book = read_catalogue(catalogue_dir())
    for plugin in folders(CATALOGUES):
        try:
            book = with_plugin(book, read_catalogue(plugin.folder))
        except CatalogueError as exc:
            skip(plugin.label, str(exc))
    return book


def with_plugin(book: Catalogue, added: Catalogue) -> Catalogue:
    """``book`` with ``added``'s models and hosts.

    Raises:
        CatalogueError: ``added`` names a model ``book`` has, or has no model.
    """
    if not added.entries:
        raise CatalogueError("no model catalogue file (<provider>.yaml) in its folder")
    if taken := sorted(set(added.entries) & set(book.entries)):
        raise CatalogueError(f"{taken[0]} is already in the catalogue")
    hosts = {**added.hosts, **book.hosts}  # a provider's host is the shipped one when both name it
    return Catalogue(entries={**book.entries, **added.entries}, hosts=hosts)


def fill_tiers(models: Mapping[str, Any], book: Catalogue) -> dict[str, Any]:
    """``models`` (a composed ``models`` node as plain data) with each tier's absent facts taken from the
    catalogue entry of its model (a key the tier sets, even to null, is kept: ``++models.tiers.strong.
    output_tokens_per_second=null`` sends every call whole); a tier whose model is not in the catalogue is left as
    it is (its preset states its facts, as the fake and an ``openai_compatible`` server do). The embedded model's
    facts (its $0 price among them) are its entry's, not its preset's, so they never stay on a tier overridden to
    another model (design.md#catalogue)."""
    out = dict(models)
    tiers = {}
    for name, tier in (models.get("tiers") or {}).items():
        tier = dict(tier) if isinstance(tier, Mapping) else tier
        entry = book.entry(tier.get("model", "")) if isinstance(tier, dict) else None
        if entry is not None:
            for fact in TIER_FACTS:
                value = getattr(entry, fact)
                if value is not None and fact not in tier:  # a key the preset or an override sets wins, null too
                    tier[fact] = value
        tiers[name] = tier
    out["tiers"] = tiers
    return out


def missing_line(loc: tuple[Any, ...], data: Mapping[str, Any], book: Catalogue) -> str:
    """The line for the missing key at ``loc`` of ``data`` (a config as plain data): a tier's ``thinking`` missing
    because its model is not in the catalogue (a retired or mistyped id: ``anthropic/claude-3-opus-20240229``) says
    so, not only "missing required key"."""
    if len(loc) == 4 and loc[:2] == ("models", "tiers") and loc[3] == "thinking":
        tier = (data.get("models") or {}).get("tiers", {}).get(loc[2]) or {}
        model = tier.get("model") if isinstance(tier, Mapping) else None
        if isinstance(model, str) and book.entry(model) is None:
            return (f"missing required key: {model} is not in the model catalogue (conf/catalogue/), so how it thinks "
                    f"is unknown; pick a catalogued model, or set models.tiers.{loc[2]}.thinking (off, budget, "
                    "adaptive or effort) if the provider still serves it")
    return "missing required key"


def _shown(entry: CatalogueEntry) -> str:
    return f"{entry.source.url}, read {entry.source.read.isoformat()}"


def check_lifecycle(tiers: Mapping[str, str], book: Catalogue, today: dt.date) -> None:
    """Refuse a tier whose model's shutdown date is ``today`` or earlier, or whose model refuses a forced tool.

    Args:
        tiers: tier name -> model string (the tiers a session routes to).

    Raises:
        CatalogueError: one line naming the tier, the model, the date, the replacement and the source.
    """
    for tier, model in tiers.items():
        entry = book.entry(model)
        if entry is not None and not entry.forced_tool_use:
            raise CatalogueError(f"models.tiers.{tier}: {model} refuses a forced tool, which cosci's record calls "
                                 f"send ({_shown(entry)}); pick another model")
        if entry is None or entry.shutdown is None or entry.shutdown > today:
            continue
        instead = _instead(tier, entry, book, today)
        raise CatalogueError(f"models.tiers.{tier}: {model} was shut down on {entry.shutdown.isoformat()} "
                             f"({_shown(entry)}); {instead}")


def _usable(model: str, book: Catalogue, today: dt.date) -> str:
    """Why cosci cannot route to ``model`` (``"refuses a forced tool…"``, ``"was shut down…"``), "" when it can."""
    entry = book.entry(model)
    if entry is None:
        return ""
    if not entry.forced_tool_use:
        return "refuses a forced tool, which cosci's record calls send"
    if entry.shutdown is not None and entry.shutdown <= today:
        return f"was shut down on {entry.shutdown.isoformat()}"
    return ""


def _instead(tier: str, entry: CatalogueEntry, book: Catalogue, today: dt.date) -> str:
    """What to use instead of a shut-down model: its provider's replacement when cosci can route to it, else why
    not (a replacement that refuses a forced tool was once advised, and then refused by the next command)."""
    if not entry.replacement:
        return "pick a served model"
    if why := _usable(entry.replacement, book, today):
        return f"its replacement {entry.replacement} {why}: pick another served model"
    return f"use {entry.replacement} (models.tiers.{tier}.model={entry.replacement})"


def lifecycle_warnings(tiers: Mapping[str, str], book: Catalogue, today: dt.date) -> list[str]:
    """One line per model (once, whatever the number of tiers naming it) whose shutdown is within
    :data:`WARN_DAYS` days after ``today``."""
    lines, seen = [], set()
    for model in tiers.values():
        entry = book.entry(model)
        if model in seen or entry is None or entry.shutdown is None:
            continue
        seen.add(model)
        days = (entry.shutdown - today).days
        if 0 < days <= WARN_DAYS:
            why = _usable(entry.replacement, book, today) if entry.replacement else ""
            then = (f"; its replacement {entry.replacement} {why}" if why else f"; move to {entry.replacement}") \
                if entry.replacement else ""
            lines.append(f"warning: {model} shuts down on {entry.shutdown.isoformat()}, in {days} day"
                         f"{'s' if days != 1 else ''} ({_shown(entry)}){then}")
    return lines



def who_classifies(models: Mapping[str, Any], book: Catalogue, heldout: Heldout, *, frozen: bool = False
                   ) -> dict[str, Any]:
    """``models`` with each tier that may not decide safety verdicts marked ``unable_to_classify`` (docs/design.md#
    safety-measured): a tier decides only when its model's catalogue entry holds a measurement on ``heldout`` no
    worse than the offline screen's (:func:`cosci.config.measured.shortfall`), or its model is scripted (the fake).
    A tier the rule marks gets ``unable_because``, the reason a session prints; a tier marked by its preset keeps
    its mark.

    Args:
        frozen: a stopped session's snapshot (a resume, ``cosci status``): a tier the snapshot says decides is
            marked when it may not today, not refused (a tier this rule marked, snapshot or not, is judged again).

    Raises:
        CatalogueError: (not ``frozen``) a tier set ``unable_to_classify: false`` whose model may not decide; one
            line naming the tier, the model, why, and how to measure it.
    """
    out = dict(models)
    tiers: dict[str, Any] = {}
    for name, tier in (models.get("tiers") or {}).items():
        if not isinstance(tier, Mapping):
            tiers[name] = tier
            continue
        tier = dict(tier)
        if tier.pop("unable_because", None):  # marked by this rule before (a snapshot, a dumped config): again
            tier.pop("unable_to_classify", None)
        model = str(tier.get("model", ""))
        entry = book.entry(model)
        gap = None if scripted(model) else shortfall(entry.classifier if entry else None, heldout)
        said = tier.get("unable_to_classify")
        if gap is not None and said is not True:
            if said is False and not frozen:
                raise CatalogueError(
                    f"models.tiers.{name}.unable_to_classify=false: {model} is {gap}, so it may not decide safety "
                    f"verdicts (docs/design.md#safety-measured); measure it with `python -m bench.safety_tiers "
                    f"--models {models.get('name', '<preset>')} --tier {name}` and record its entry in "
                    f"conf/catalogue, or leave the offline screen to decide")
            tier.update(unable_to_classify=True, unable_because=gap)
        tiers[name] = tier
    out["tiers"] = tiers
    return out
