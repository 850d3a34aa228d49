"""On the embedded model (the default ``models=local``) the support check answers through the session's own path,
and every verdict it gives is recorded as a note with the claim ``unchecked``, never ``supported``. Slow: the
model runs on the CPU."""

from __future__ import annotations

import pytest

from bench.claims import support_verdicts

pytestmark = pytest.mark.slow


async def test_the_embedded_models_support_answers_are_unchecked_never_supported() -> None:
    pairs, raw, claims, model, size = await support_verdicts("local", 4)
    assert model.startswith("cosci-local/") and size == 3 and len(claims) == len(pairs) == 4
    assert all(v in ("supported", "partially_supported", "not_supported", "contradicted", "no answer") for v in raw)
    assert [c.status for c in claims] == ["unchecked"] * 4
    answered = [c for c, v in zip(claims, raw, strict=True) if v != "no answer"]
    assert all("not counted: an embedded model's verdict" in c.support_note or "rests on no quote" in c.support_note
               for c in answered)
