"""The model catalogue (``conf/catalogue/``) and its lifecycle rules (docs/design.md#catalogue).

Lifecycle rules are tested with catalogue entries made in the test and an injected date, so no test depends on
the day it runs; the shipped data is checked against the acceptance date 2027-03-01 (no preset may name a model
shut down before it).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml

import cosci.config.load as load
from cosci.config.catalogue import (
    WARN_DAYS,
    Catalogue,
    CatalogueError,
    catalogue,
    check_lifecycle,
    fill_tiers,
    lifecycle_warnings,
    read_catalogue,
)
from cosci.config.load import ConfigError, compose, validate
from cosci.paths import conf_dir
from tests.conftest import run_cli

TODAY = dt.date(2026, 12, 4)
SOURCE = {"url": "https://example.org/models", "read": "2026-12-04"}


def book(tmp_path: Path, **entries: Mapping[str, object]) -> Catalogue:
    """A catalogue of one provider file holding ``entries`` (model string -> facts), written and read back."""
    folder = tmp_path / "catalogue"
    folder.mkdir(exist_ok=True)
    models = {m.replace("__", "/"): {"thinking": "off", "source": SOURCE, **facts} for m, facts in entries.items()}
    (folder / "p.yaml").write_text(yaml.safe_dump({"provider": "p", "host": "api.example.org", "models": models}))
    return read_catalogue(folder)


def presets() -> list[str]:
    return sorted(p.stem for p in (Path(conf_dir()) / "models").glob("*.yaml"))


# --- the shipped data -------------------------------------------------------------------------------------------------
def test_every_entry_cites_a_source_read_on_a_day() -> None:
    shipped = catalogue()
    assert len(shipped.entries) >= 20
    for model, entry in shipped.entries.items():
        assert entry.source.url.startswith("https://"), model
        assert entry.source.read <= dt.date(2026, 12, 5), model  # read on or before the day the data was written
        if entry.input_usd_per_mtok == 0.0 or entry.output_usd_per_mtok == 0.0:  # zero only for a local server
            assert model.startswith(("ollama", "cosci-local/")), model  # or the embedded model, run in-process


@pytest.mark.parametrize("name", presets())
def test_no_preset_names_a_model_shut_down_before_2027_03_01(name: str) -> None:
    """Every model a preset names is a catalogue entry (a model absent from it has no date to check, so the rule
    would pass it unread), except the scripted fake's and the ``openai_compatible`` preset's, whose server and model
    the researcher chooses."""
    config = validate(compose([f"models={name}"]), on=dt.date(2026, 12, 4))
    shipped = catalogue()
    for tier, entry in config.models.tiers.items():
        facts = shipped.entry(entry.model)
        if facts is None:
            assert name in ("fake", "openai_compatible"), f"{name}: {tier} names {entry.model}, not in the catalogue"
            continue
        assert facts.shutdown is None or facts.shutdown >= dt.date(2027, 3, 1), (tier, entry.model)
        assert facts.forced_tool_use, (tier, entry.model)


def test_a_preset_only_assigns_models_and_the_catalogue_fills_the_facts() -> None:
    config = validate(compose(["models=opus"]))
    strong = config.models.tiers["strong"]
    assert strong.model == "anthropic/claude-opus-5"
    assert (strong.thinking, strong.cache_min_tokens, strong.api_key_env, strong.batch) == (
        "adaptive", 512, "ANTHROPIC_API_KEY", True)
    preset = yaml.safe_load((Path(conf_dir()) / "models" / "opus.yaml").read_text())
    assert preset["tiers"]["strong"] == {"model": "anthropic/claude-opus-5"}  # no fact repeated in the preset


def test_the_embedded_models_zero_price_does_not_stick_to_a_tier_overridden_to_a_hosted_model() -> None:
    """Fresh-user report: `models=local models.tiers.strong.model=anthropic/...` estimated and budgeted the hosted
    calls at $0, the local preset's own price for its embedded model. Prices follow the model: the hosted model's
    catalogue price, unless the user sets one for that tier; the embedded model's tiers still cost nothing."""
    from cosci.llm.gateway.estimate import estimate_session

    hosted = "anthropic/claude-opus-5"
    price = catalogue().entry(hosted)
    assert price is not None and price.input_usd_per_mtok and price.output_usd_per_mtok
    config = validate(compose(["models=local", f"models.tiers.strong.model={hosted}"]))
    strong, cheap = config.models.tiers["strong"], config.models.tiers["cheap"]
    assert (strong.input_usd_per_mtok, strong.output_usd_per_mtok) == (price.input_usd_per_mtok,
                                                                       price.output_usd_per_mtok)
    assert strong.thinking == price.thinking  # the hosted model's form, not the embedded model's "off"
    assert (cheap.input_usd_per_mtok, cheap.output_usd_per_mtok, cheap.thinking) == (0.0, 0.0, "off")
    assert estimate_session(config).usd > 0
    assert estimate_session(validate(compose(["models=local"]))).usd == 0
    mine = validate(compose(["models=local", f"models.tiers.strong.model={hosted}",
                             "models.tiers.strong.input_usd_per_mtok=1.5"])).models.tiers["strong"]
    assert (mine.input_usd_per_mtok, mine.output_usd_per_mtok) == (1.5, price.output_usd_per_mtok)


def test_a_key_the_tier_sets_wins_over_the_catalogue_even_null(tmp_path: Path) -> None:
    shipped = book(tmp_path, m__a={"thinking": "effort", "lowest_effort": "low", "output_tokens_per_second": 20})
    filled = fill_tiers({"tiers": {"t": {"model": "m/a", "lowest_effort": "high", "output_tokens_per_second": None},
                                   "u": {"model": "unknown/x", "thinking": "off"}}}, shipped)
    assert filled["tiers"]["t"] == {"model": "m/a", "thinking": "effort", "lowest_effort": "high",
                                    "output_tokens_per_second": None}
    assert filled["tiers"]["u"] == {"model": "unknown/x", "thinking": "off"}  # not in the catalogue: as it is


def test_a_catalogue_file_breaking_the_schema_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "x.yaml").write_text(yaml.safe_dump({"provider": "x", "host": "h", "models": {
        "x/m": {"thinking": "sometimes", "source": SOURCE}}}))
    with pytest.raises(CatalogueError) as info:
        read_catalogue(folder)
    assert "\n" not in str(info.value) and "x.yaml" in str(info.value) and "thinking" in str(info.value)


# --- lifecycle rules on entries made here --------------------------------------------------------------------------
def test_a_model_past_its_shutdown_refuses_in_one_line_naming_date_and_replacement(tmp_path: Path) -> None:
    shipped = book(tmp_path, old__m={"shutdown": "2026-10-23", "replacement": "new/m"}, new__m={})
    with pytest.raises(CatalogueError) as info:
        check_lifecycle({"cheap": "old/m"}, shipped, TODAY)
    line = str(info.value)
    assert "\n" not in line and "old/m" in line and "2026-10-23" in line and "new/m" in line
    assert line.startswith("models.tiers.cheap:")
    check_lifecycle({"cheap": "new/m"}, shipped, TODAY)  # the replacement passes


def test_a_replacement_cosci_cannot_route_to_is_not_advised(tmp_path: Path) -> None:
    """A fresh user followed the advice "use anthropic/claude-sonnet-5-5" for a shut-down model and the next command
    refused it (it refuses a forced tool): a replacement cosci cannot route to, refusing a forced tool or shut down
    itself, is named with why, never as the model to set; the warning before a shutdown says the same."""
    shipped = book(tmp_path, old__m={"shutdown": "2026-10-23", "replacement": "new/m"},
                   new__m={"forced_tool_use": False}, gone__m={"shutdown": "2026-10-23", "replacement": "older/m"},
                   older__m={"shutdown": "2026-09-01"},
                   soon__m={"shutdown": (TODAY + dt.timedelta(days=3)).isoformat(), "replacement": "new/m"})
    with pytest.raises(CatalogueError) as info:
        check_lifecycle({"strong": "old/m"}, shipped, TODAY)
    line = str(info.value)
    assert "its replacement new/m refuses a forced tool" in line and "models.tiers.strong.model=new/m" not in line
    with pytest.raises(CatalogueError, match="its replacement older/m was shut down on 2026-09-01"):
        check_lifecycle({"strong": "gone/m"}, shipped, TODAY)
    warned = lifecycle_warnings({"strong": "soon/m"}, shipped, TODAY)
    assert len(warned) == 1 and "its replacement new/m refuses a forced tool" in warned[0]
    assert "move to" not in warned[0]


def test_a_dated_snapshot_shuts_down_with_its_model(tmp_path: Path) -> None:
    shipped = book(tmp_path, a__m={"shutdown": "2026-10-23"})
    with pytest.raises(CatalogueError, match="a/m-20250929 was shut down on 2026-10-23"):
        check_lifecycle({"strong": "a/m-20250929"}, shipped, TODAY)


def test_the_shutdown_day_itself_refuses_and_the_day_before_warns(tmp_path: Path) -> None:
    shipped = book(tmp_path, a__m={"shutdown": "2026-12-04"})
    with pytest.raises(CatalogueError):
        check_lifecycle({"strong": "a/m"}, shipped, TODAY)
    check_lifecycle({"strong": "a/m"}, shipped, TODAY - dt.timedelta(days=1))
    assert lifecycle_warnings({"strong": "a/m"}, shipped, TODAY - dt.timedelta(days=1)) == [
        f"warning: a/m shuts down on 2026-12-04, in 1 day ({SOURCE['url']}, read 2026-12-04)"]


def test_within_30_days_warns_once_per_model_and_beyond_it_not(tmp_path: Path) -> None:
    soon = (TODAY + dt.timedelta(days=WARN_DAYS)).isoformat()
    later = (TODAY + dt.timedelta(days=WARN_DAYS + 1)).isoformat()
    shipped = book(tmp_path, soon__m={"shutdown": soon, "replacement": "x/y"}, later__m={"shutdown": later})
    lines = lifecycle_warnings({"strong": "soon/m", "cheap": "soon/m", "mini": "later/m"}, shipped, TODAY)
    assert len(lines) == 1 and "soon/m" in lines[0] and f"in {WARN_DAYS} days" in lines[0] and "x/y" in lines[0]


def test_a_model_that_refuses_a_forced_tool_is_refused(tmp_path: Path) -> None:
    shipped = book(tmp_path, no__tools={"forced_tool_use": False})
    with pytest.raises(CatalogueError, match="refuses a forced tool"):
        check_lifecycle({"strong": "no/tools"}, shipped, TODAY)


def test_validate_refuses_a_retired_tier_as_a_config_error(tmp_path: Path) -> None:
    shipped = book(tmp_path, **{"cosci-fake__cheap": {"shutdown": "2026-11-30", "replacement": "cosci-fake/mini"}})
    with pytest.raises(ConfigError) as info:
        validate(compose(["models=fake"]), on=TODAY, book=shipped)
    assert "cosci-fake/cheap was shut down on 2026-11-30" in str(info.value)
    validate(compose(["models=fake"]), on=dt.date(2026, 11, 29), book=shipped)


def retire(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shutdown: str) -> None:
    """The fake's cheap model made to shut down on ``shutdown``, today being :data:`TODAY`."""
    shipped = book(tmp_path, **{"cosci-fake__cheap": {"shutdown": shutdown, "replacement": "cosci-fake/mini",
                                                      "thinking": "off"}})
    monkeypatch.setattr(load, "catalogue", lambda: shipped)
    monkeypatch.setattr(load, "today", lambda: TODAY)


def test_cosci_run_on_a_retired_model_exits_2_in_one_line_before_anything(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    retire(monkeypatch, tmp_path, "2026-12-01")
    data = tmp_path / "data"
    code, out, err = run_cli(capsys, "run", "--goal", "Find drugs to repurpose for acute myeloid leukemia",
                             "models=fake", f"paths.data_dir={data}")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "cosci-fake/cheap was shut down on 2026-12-01" in err
    assert "cosci-fake/mini" in err and not data.exists()  # nothing written, no call made


def test_python_m_cosci_run_refuses_the_same_way(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from cosci.run import main

    retire(monkeypatch, tmp_path, "2026-12-04")
    data = tmp_path / "data"
    with pytest.raises(SystemExit) as info:
        main(["experiment=demo", "models=fake", f"paths.data_dir={data}"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1 and "shut down on 2026-12-04" in err and not data.exists()


def test_cosci_check_warns_once_within_30_days(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    retire(monkeypatch, tmp_path, "2026-12-20")
    code, out, err = run_cli(capsys, "check", "models=fake")
    assert code == 0 and out.startswith("check     fake"), err
    warnings = [x for x in err.splitlines() if x.startswith("warning:")]
    assert warnings == [f"warning: cosci-fake/cheap shuts down on 2026-12-20, in 16 days ({SOURCE['url']}, read "
                        "2026-12-04); move to cosci-fake/mini"]


def test_cosci_run_warns_once_within_30_days_then_starts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The warning is printed once, on stderr, before the session is handed to the flow (which is replaced here
    by a recorder: the warning must not stop the session)."""
    import flows.launch

    started: list[str] = []
    monkeypatch.setattr(flows.launch, "run_session", lambda config, **_: started.append(config.session.goal))
    retire(monkeypatch, tmp_path, "2026-12-20")
    code, _, err = run_cli(capsys, "run", "--goal", "Find drugs to repurpose for acute myeloid leukemia",
                           "models=fake", f"paths.data_dir={tmp_path / 'data'}")
    assert code == 0 and started == ["Find drugs to repurpose for acute myeloid leukemia"], err
    warnings = [x for x in err.splitlines() if "warning:" in x]
    assert warnings == [f"warning: cosci-fake/cheap shuts down on 2026-12-20, in 16 days ({SOURCE['url']}, read "
                        "2026-12-04); move to cosci-fake/mini"]


def test_python_m_cosci_run_warns_once_within_30_days_before_it_starts(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The pre-validation of every job (before Hydra or Prefect start) prints the warning once for a sweep."""
    from cosci.run import prevalidate

    retire(monkeypatch, tmp_path, "2026-12-24")
    prevalidate(["experiment=demo", "models=fake", f"paths.data_dir={tmp_path / 'data'}", "run.seed=1,2"], True)
    err = capsys.readouterr().err
    assert err.count("warning: cosci-fake/cheap shuts down on 2026-12-24, in 20 days") == 1


def test_a_frozen_config_on_a_retired_model_is_read_but_not_resumed(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    """Commands that call no model (rate, result, status) still read a session whose model has retired; a resume
    is refused."""
    from cosci.config.frozen import frozen_config

    snapshot = validate(compose(["experiment=demo", "models=fake"])).model_dump(mode="json")
    retire(monkeypatch, tmp_path, "2026-12-01")
    assert frozen_config(snapshot, tmp_path).models.tiers["cheap"].model == "cosci-fake/cheap"
    with pytest.raises(ConfigError, match="shut down on 2026-12-01"):
        frozen_config(snapshot, tmp_path, lifecycle=True)


@pytest.mark.parametrize(("override", "line"), [
    ("models.tiers=local", "models.tiers: Input should be a valid dictionary"),
    ("models.tiers.strong=local", "models.tiers.strong: Input should be a valid dictionary"),
])
def test_tiers_given_as_a_word_are_one_line_not_a_traceback(override: str, line: str) -> None:
    """``models.tiers=local`` (meant ``models=local``) is named by the config's validation, not an AttributeError
    from filling the tiers' catalogue facts."""
    with pytest.raises(ConfigError) as info:
        validate(compose(["experiment=demo", "models=fake", override]))
    assert str(info.value).startswith(line), str(info.value)


def test_a_model_missing_from_the_catalogue_is_named_not_only_its_missing_key() -> None:
    """Fresh user: a retired id the catalogue never listed (``anthropic/claude-3-opus-20240229``) read only
    ``models.tiers.strong.thinking: missing required key``; the line says the model is not in the catalogue and
    what to do, and a stated thinking form still lets it through."""
    model = "anthropic/claude-3-opus-20240229"
    with pytest.raises(ConfigError) as info:
        validate(compose(["experiment=demo", "models=opus", f"models.tiers.strong.model={model}"]))
    assert str(info.value).startswith(f"models.tiers.strong.thinking: missing required key: {model} is not in the "
                                      "model catalogue"), str(info.value)
    assert "models.tiers.strong.thinking (off, budget, adaptive or effort)" in str(info.value)
    validate(compose(["experiment=demo", "models=opus", f"models.tiers.strong.model={model}",
                      "models.tiers.strong.thinking=off"]))
