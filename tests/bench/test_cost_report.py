"""The cost bench's headline (``python -m bench.cost``): the session ratio is against no cache *and* no handbook
padding, the last line says so, and the padded baseline is printed beside it, never as the headline."""

from __future__ import annotations

from bench.cost import PLACEMENTS, ROOT, Tally, models_config, report, shaped


def test_the_headline_ratio_divides_by_the_unpadded_uncached_session() -> None:
    # one loop mode: cached $4, uncached with the padding $10, uncached without it $6 (the padding is $4 of it)
    usd = {p: 5.0 for p in PLACEMENTS} | {"configured": 4.0, "none": 10.0, "none-handbook": 6.0}
    results = {p: {"generation.literature": Tally(usd=v, calls=3)} for p, v in usd.items()}
    lines: list[str] = []
    ratio = report(results, lines.append)
    assert ratio == 4.0 / 6.0
    assert lines[-1] == "session ratio (cached / uncached, no padding): 0.667"
    assert "0.400" in lines[-2] and "padded" in lines[-2]  # the flattering baseline, beside the headline
    session = next(line for line in lines if line.startswith("session "))
    assert session.split()[-2:] == ["0.667", "0.400"]  # vs plain, vs padded


def test_the_priced_tiers_take_their_cache_minimums_and_speeds_from_the_catalogue() -> None:
    """A preset names models only (conf/models/opus.yaml); read alone, no tier had a cache minimum, so the replay
    cached nothing and the headline read 1.48 (the padding's cost with no cache to earn it). The recorded session is
    shaped by the same facts (it was shaped by hand for Opus 4.7's 4,096-token minimum; Opus 5's is 512)."""
    tiers = models_config(ROOT / "conf" / "models" / "opus.yaml")["tiers"]
    assert {name: tiers[name]["cache_min_tokens"] for name in ("strong", "cheap", "mini")} == {
        "strong": 512, "cheap": 1024, "mini": 4096}
    assert all(tiers[name]["output_tokens_per_second"] > 0 for name in ("strong", "cheap", "mini"))
    assert shaped({"tiers": tiers}) == [
        "models.tiers.strong.thinking=adaptive", "++models.tiers.strong.cache_min_tokens=512",
        "models.tiers.cheap.thinking=off", "++models.tiers.cheap.cache_min_tokens=1024",
        "models.tiers.mini.thinking=off", "++models.tiers.mini.cache_min_tokens=4096"]
