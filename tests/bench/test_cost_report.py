"""The cost bench's headline (``python -m bench.cost``): the session ratio is against no cache *and* no handbook
padding, the last line says so, and the padded baseline is printed beside it, never as the headline."""

from __future__ import annotations

from bench.cost import PLACEMENTS, Tally, report


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
