"""Who decides safety verdicts, as configuration (docs/design.md#safety-measured): a tier decides only when its
model's catalogue entry holds a measurement on the current held-out set no worse than the offline screen's.

Catalogues and held-out records are made in the tests; the shipped ones are checked against the data they name."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import yaml

from cosci.config.catalogue import Catalogue, catalogue, read_catalogue
from cosci.config.load import ConfigError, classifier_lines, compose, validate
from cosci.config.measured import Heldout, current_heldout, shortfall
from cosci.config.schema import CosciConfig

HELD = Heldout(set="tests/data/safety/goals_intent.jsonl", part="heldout", rows=100, sha256="a" * 64)
MINI = "ollama_chat/qwen2.5:3b"


def measurement(**changes: Any) -> dict[str, Any]:
    """A measurement on :data:`HELD` as good as the screen (30/40 refused, 1/60 benign refused), with ``changes``."""
    return {"goals": 100, "refused": 30, "harmful": 40, "falsely_refused": 1, "benign": 60, "screen_refused": 30,
            "screen_falsely_refused": 1, "heldout_sha256": "a" * 64, "measured": "2026-12-05",
            "command": "python -m bench.safety_tiers --models ollama --tier mini", **changes}


def book(tmp_path: Path, classifier: dict[str, Any] | None) -> Catalogue:
    """A catalogue holding the Ollama preset's models, the mini one with ``classifier`` as its measurement (or none)."""
    folder = tmp_path / "catalogue"
    folder.mkdir(exist_ok=True)
    facts: dict[str, Any] = {"thinking": "off", "source": {"url": "https://example.org/m", "read": "2026-12-04"}}
    models = {m: dict(facts) for m in ("ollama_chat/qwen2.5:14b", "ollama_chat/qwen2.5:7b", MINI)}
    if classifier is not None:
        models[MINI]["classifier"] = classifier
    (folder / "p.yaml").write_text(yaml.safe_dump({"provider": "ollama", "host": "localhost", "models": models}))
    return read_catalogue(folder)


def ollama(tmp_path: Path, classifier: dict[str, Any] | None, *overrides: str) -> CosciConfig:
    return validate(compose(["models=ollama", "experiment=demo", *overrides]), book=book(tmp_path, classifier),
                    heldout=HELD)


def test_a_tier_without_a_measurement_is_unable_and_the_pre_flight_says_why(tmp_path: Path) -> None:
    config = ollama(tmp_path, None)
    mini = config.models.tiers["mini"]
    assert mini.unable_to_classify and mini.unable_because == "not measured as a classifier"
    assert classifier_lines([config, config]) == [  # once, however many jobs route to it
        f"safety: tier mini ({MINI}) not measured as a classifier; the offline screen decides "
        "(docs/design.md#safety-measured)"]


WORSE = "measured worse than the offline screen (refused "


@pytest.mark.parametrize(("changes", "because"), [
    ({"refused": 29}, WORSE + "29/40 harmful requests, the offline screen 30)"),
    ({"falsely_refused": 2}, WORSE + "2/60 benign goals, the offline screen 1)"),
    ({"heldout_sha256": "b" * 64}, "measured on another held-out set (bbbbbbbbbbbb, 2026-12-05; today's is "
                                   "aaaaaaaaaaaa)"),
    ({"goals": 50}, "measured on a sample of 50 of the 100 held-out goals, not the whole part"),
])
def test_a_measurement_worse_stale_or_partial_leaves_the_tier_unable(tmp_path: Path, changes: dict[str, Any],
                                                                      because: str) -> None:
    mini = ollama(tmp_path, measurement(**changes)).models.tiers["mini"]
    assert mini.unable_to_classify and mini.unable_because == because


def test_a_measurement_no_worse_than_the_screen_lets_the_tier_decide(tmp_path: Path) -> None:
    config = ollama(tmp_path, measurement(refused=31, falsely_refused=0))
    mini = config.models.tiers["mini"]
    assert not mini.unable_to_classify and mini.unable_because is None and classifier_lines([config]) == []
    assert config.models.tiers["strong"].unable_to_classify  # its model has no measurement


def test_unable_to_classify_false_on_an_unmeasured_tier_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        ollama(tmp_path, measurement(refused=10), "models.tiers.mini.unable_to_classify=false")
    line = str(info.value)
    assert "\n" not in line and line.startswith(f"models.tiers.mini.unable_to_classify=false: {MINI} is measured "
                                                "worse than the offline screen (refused 10/40")
    assert "python -m bench.safety_tiers --models ollama --tier mini" in line
    assert not ollama(tmp_path, measurement(), "models.tiers.mini.unable_to_classify=false"
                      ).models.tiers["mini"].unable_to_classify  # measured: the override is what the rule says


def test_the_embedded_model_cannot_be_marked_able_and_the_fake_can_for_scripted_tests(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cosci-local/smollm2-135m-instruct is measured"):
        validate(compose(["models=local", "models.tiers.mini.unable_to_classify=false"]))
    fake = validate(compose(["models=fake", "models.tiers.mini.unable_to_classify=false"]))
    assert not fake.models.tiers["mini"].unable_to_classify  # its answers are the test's script
    assert validate(compose(["models=fake"])).models.tiers["mini"].unable_to_classify  # by default the screen


def test_a_frozen_snapshot_is_judged_again_on_todays_catalogue_and_never_refused(tmp_path: Path) -> None:
    measured = ollama(tmp_path, measurement())
    snapshot = measured.model_dump(mode="json")  # frozen when its measurement was current
    again = validate(snapshot, book=book(tmp_path, None), heldout=HELD, frozen=True)
    assert again.models.tiers["mini"].unable_because == "not measured as a classifier"
    with pytest.raises(ConfigError, match="unable_to_classify=false"):  # a new session from it would be refused
        validate(snapshot, book=book(tmp_path, None), heldout=HELD)
    unmeasured = ollama(tmp_path, None).model_dump(mode="json")  # marked by the rule, then measured
    assert not validate(unmeasured, book=book(tmp_path, measurement()), heldout=HELD,
                        frozen=True).models.tiers["mini"].unable_to_classify


def test_no_shipped_preset_has_a_tier_deciding_without_a_measurement() -> None:
    held = current_heldout()
    for path in sorted((Path(__file__).parents[2] / "conf" / "models").glob("*.yaml")):
        config = validate(compose([f"models={path.stem}"]))
        for tier, entry in config.models.tiers.items():
            facts = catalogue().entry(entry.model)
            if not entry.model.startswith("cosci-fake/"):
                assert entry.unable_to_classify or shortfall(facts.classifier if facts else None, held) is None, (
                    path.stem, tier)


def test_the_recorded_held_out_set_is_the_one_in_tests_data() -> None:
    from bench.safety_tiers import heldout

    assert current_heldout() == heldout(), (
        "the held-out part of goals_intent.jsonl changed: run python -m bench.safety_tiers --heldout-hash (every "
        "recorded measurement becomes stale; measure again)")


def test_the_embedded_models_measurement_is_recorded_and_not_good_enough() -> None:
    entry = catalogue().entry("cosci-local/smollm2-135m-instruct")
    assert entry is not None and entry.classifier is not None
    m = entry.classifier
    assert m.heldout_sha256 == current_heldout().sha256 and m.measured <= dt.date.today()
    assert m.command.startswith("python -m bench.safety_tiers --models local --tier mini")
    assert shortfall(m, current_heldout()) is not None
    root = Path(__file__).parents[2]
    for doc in ("docs/safety.md", "bench/README.md"):  # the figures the documents state are the recorded ones
        text = (root / doc).read_text(encoding="utf-8")
        for k, n in ((m.refused, m.harmful), (m.falsely_refused, m.benign)):
            assert f"{100 * k / n:.1f} % ({k}/{n})" in text, (doc, k, n)
        assert f"{100 * m.screen_recall:.1f} %" in text and f"{100 * m.screen_false_refusal:.1f} %" in text, doc


def test_python_m_cosci_run_says_once_who_decides_before_anything_runs(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    from cosci.run import prevalidate

    prevalidate(["experiment=demo", "models=ollama", "tracking.enabled=false", f"paths.data_dir={tmp_path}"], False)
    err = capsys.readouterr().err
    assert err.splitlines() == [f"safety: tier mini ({MINI}) not measured as a classifier; the offline screen decides "
                                "(docs/design.md#safety-measured)"]
