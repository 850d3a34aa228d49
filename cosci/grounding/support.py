"""The support check's material and how its answers become claim statuses; the comparison with the blind audit
(``docs/design.md#claim-statuses``). No model calls here: :mod:`cosci.agents.claim_check` makes them.

- Only claims that are traceable and cite a source are checked (:attr:`~cosci.grounding.claims.Claim.checkable`);
  each goes out with only its cited sources: their verified excerpts and the record text a tool returned.
- A ``supported``, ``partially_supported`` or ``contradicted`` verdict must rest on a quote of those sources:
  its ``excerpt`` is checked with :func:`~cosci.grounding.excerpts.check_excerpt` against each cited source's
  excerpts and text. An answer whose quote is not there, a failed or invalid call, or a claim over the call
  budget is ``unchecked`` — never ``supported``.
- Agreement with the audit (:func:`agreement`): over the claims the support check answered, the support check
  flags a claim unless its status is ``supported``; the audit flags it when one of its overclaims quotes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from cosci.grounding.claims import SUPPORT_VERDICTS, CitableSource, Claim, ClaimContext
from cosci.grounding.excerpts import check_excerpt
from cosci.grounding.tokens import normalise
from cosci.records import ClaimVerdict

NEEDS_QUOTE = ("supported", "partially_supported", "contradicted")
AUDIT_MATCH = 85.0
"""rapidfuzz ``partial_ratio`` (0-100, normalised text) at which an audit overclaim quotes a claim."""


@dataclass(frozen=True)
class SupportItem:
    """One claim as the support check sees it: its index in the claim map, the sentence, the guards' hits and
    the cited sources."""

    index: int
    claim: str
    overclaim: tuple[str, ...]
    sources: tuple[CitableSource, ...]


def items(claims: Sequence[Claim], ctx: ClaimContext) -> list[SupportItem]:
    """The claims the support check applies to, with their cited sources."""
    return [SupportItem(i, c.claim, tuple(c.overclaim), tuple(ctx.sources[label] for label in c.labels))
            for i, c in enumerate(claims) if c.checkable]


def batches(todo: Sequence[SupportItem], size: int) -> list[list[SupportItem]]:
    """``todo`` in batches of at most ``size`` claims (one call each)."""
    return [list(todo[i:i + size]) for i in range(0, len(todo), size)]


def source_block(src: CitableSource, chars: int) -> str:
    """A cited source for the prompt (to be quoted as untrusted): label, title, verified excerpts, text."""
    excerpts = "\n".join(f"Verified excerpt: {e}" for e in src.excerpts if e)
    return f"[{src.label}] {src.title or src.source_id} ({src.source_id})\n{excerpts}\nText: {src.text[:chars]}"


def quote_found(excerpt: str, sources: Sequence[CitableSource]) -> bool:
    """Whether ``excerpt`` is a faithful quote of one of ``sources`` (an excerpt or its record text)."""
    return any(check_excerpt(excerpt, text).verified for s in sources for text in (*s.excerpts, s.text) if text)


def apply(claim: Claim, item: SupportItem, verdict: ClaimVerdict | None, why_missing: str = "") -> None:
    """Record the support check's answer on ``claim`` and settle its status (see module docstring)."""
    if verdict is None:
        claim.support, claim.support_note = "unchecked", why_missing or "the support check gave no answer"
    elif verdict.verdict in NEEDS_QUOTE and not quote_found(verdict.excerpt, item.sources):
        claim.support = "unchecked"
        claim.support_note = (f"the answer ({verdict.verdict}) rests on no quote of the cited sources"
                              + (f": {verdict.excerpt[:160]!r}" if verdict.excerpt.strip() else ""))
        claim.relied_on = verdict.excerpt
    else:
        claim.support, claim.relied_on, claim.support_note = verdict.verdict, verdict.excerpt, verdict.why
    claim.settle()


def can_judge(constrained: bool, constrained_verdicts: bool) -> bool:
    """Whether a tier's support verdicts count: not a schema-constrained embedded model (its judgments are near
    chance, bench/README.md "Claim checks"), unless ``metareview.claim_check_constrained_verdicts`` says they do.
    The one rule for the overview's claims and for a hypothesis's grounding quotes."""
    return not constrained or constrained_verdicts


def quote_support(verdict: ClaimVerdict | None, texts: Sequence[str], why_missing: str = "") -> tuple[str, str]:
    """``(support, note)`` of one verified quote from the support check's answer: its verdict, or ``unchecked``
    when there is no answer or a verdict needing a quote rests on none of ``texts`` (the quote and its source)."""
    if verdict is None:
        return "unchecked", why_missing or "the support check gave no answer"
    if verdict.verdict in NEEDS_QUOTE and not any(check_excerpt(verdict.excerpt, t).verified for t in texts if t):
        return "unchecked", f"the answer ({verdict.verdict}) rests on no quote of the source"
    return verdict.verdict, verdict.why


def distrust(claim: Claim, model: str) -> None:
    """Keep a verdict of a model whose judgment does not count as a note, the claim ``unchecked``."""
    if claim.support in SUPPORT_VERDICTS:
        claim.support_note = (f"{model} answered {claim.support} (not counted: an embedded model's verdict, "
                              f"metareview.claim_check_constrained_verdicts=false)" + (f"; {claim.support_note}"
                                                                                        if claim.support_note else ""))
        claim.support = "unchecked"
        claim.settle()


def _quotes(quote: str, claim: str) -> bool:
    q, c = normalise(quote), normalise(claim)
    return bool(q and c) and (fuzz.partial_ratio(q, c) >= AUDIT_MATCH if len(q) <= len(c)
                              else fuzz.partial_ratio(c, q) >= AUDIT_MATCH)


def agreement(claims: Sequence[Claim], overclaims: Sequence[tuple[str, str]]) -> dict[str, object]:
    """How the support check and the audit's ``(claim, why)`` overclaims agree (see module docstring).

    Returns:
        ``{"compared": n, "agree": k, "share": k / n or None, "disagreements": [...]}``; each disagreement has the
        claim, its status and support verdict, whether the audit flagged it, and the audit's reason.
    """
    answered = [c for c in claims if c.support in SUPPORT_VERDICTS]
    agree, disagreements = 0, []
    for c in answered:
        why = next((w for q, w in overclaims if _quotes(q, c.claim)), None)
        if (c.status != "supported") == (why is not None):
            agree += 1
        else:
            disagreements.append({"claim": c.claim, "status": c.status, "support": c.support,
                                  "audit": "flagged" if why is not None else "not flagged", "audit_why": why or ""})
    return {"compared": len(answered), "agree": agree, "share": agree / len(answered) if answered else None,
            "disagreements": disagreements}
