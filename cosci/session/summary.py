"""The end-of-session summary printed to the terminal and returned by the flow."""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cosci.session.runtime import SessionRuntime
    from cosci.store import SessionStore


@dataclass(frozen=True)
class BatchSpend:
    """Ranking's spend and what of it went through provider batches (design.md#batches). Units: USD.

    Attributes:
        ranking_usd: everything the ranking agent spent (direct and batched calls).
        batched_usd: the answered batched calls, at the batch price.
        saved_usd: what those calls would have cost more at the list price, sent directly (the batch discount).
        calls: the answered batched calls (one per batched match).
    """

    ranking_usd: float
    batched_usd: float
    saved_usd: float
    calls: int

    @property
    def share(self) -> float:
        """``batched_usd / ranking_usd`` (0-1; 0.0 before ranking spent anything)."""
        return self.batched_usd / self.ranking_usd if self.ranking_usd > 0 else 0.0

    def line(self, label: str) -> str:
        return (f"{label}{self.share:.1%} of ranking's ${self.ranking_usd:.4f} went through provider batches "
                f"(${self.batched_usd:.4f}, {self.calls} match{'' if self.calls == 1 else 'es'}), saving "
                f"${self.saved_usd:.4f} against the list price")


def batch_spend(store: SessionStore) -> BatchSpend | None:
    """The session's :class:`BatchSpend`, or None when it never queued a match for a batch (then LiteLLM, which
    prices the batches, is not imported: ``cosci status`` reads this; design.md#startup)."""
    if not store.batches.counts():
        return None
    from cosci.llm.batches.batch_gateway import batch_cost

    calls = store.logs.batched_calls("ranking")
    batched = sum(c["cost_usd"] for c in calls)
    listed = sum(batch_cost(c["model"], c["usage"], batched=False) for c in calls)
    return BatchSpend(store.logs.spend().get("ranking", {}).get("usd", 0.0), batched, max(listed - batched, 0.0),
                      len(calls))


@dataclass(frozen=True)
class SessionSummary:
    """Units: USD, tokens, Elo points, seconds."""

    session_id: str
    stop_reason: str
    spent_usd: float
    tokens: int
    hypotheses: int
    matches: int
    top_elo: float
    elapsed_seconds: float
    overview_path: str
    store_path: str
    mlflow_run_id: str | None
    tracking_uri: str | None = None
    stop_detail: str = ""
    grounding: dict[str, float] = field(default_factory=dict)
    """``evidence_*`` counts, ``claims_*`` counts, ``audit_score`` and ``audit_agreement`` (0-1)
    (:func:`cosci.grounding.report.grounding_metrics`)."""
    # judge statistics (cosci.tournament.judge_stats) (design.md#tournament)
    judge: dict[str, Any] | None = None
    """:meth:`cosci.tournament.judge_stats.JudgeStats.to_dict`: rates, 95 % intervals, held-out agreement, per judge."""
    outstanding_usd: float = 0.0
    """USD held for batched matches a provider batch still holds (not in ``spent_usd`` until settled)."""
    outstanding_matches: int = 0
    outstanding_batches: int = 0
    batches: BatchSpend | None = None
    """Ranking's spend through provider batches and what the batch price saved (None: no match was batched)."""
    audit: str = ""
    """The overview's audit in one phrase (:func:`cosci.grounding.report.audit_words`; empty before the overview):
    how the summary says "not audited: no independent model" when there is no score."""
    overview_withheld: str = ""
    """The verdict line of the screening that withheld the final overview (empty: not withheld; design.md#safety),
    read from the record's overview verdict, as ``cosci status`` reads it."""

    overview_fallback: str = ""
    """Why the final overview is the fallback written from the store, not the writer's (empty: the writer's, or no
    overview): a small budget's refusal of the writer's call among them, with its amounts (design.md#tail-reserve)."""

    def __post_init__(self) -> None:
        if isinstance(self.batches, dict):  # a summary read back from its JSON (the flow's return value)
            object.__setattr__(self, "batches", BatchSpend(**self.batches))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        out = [f"session   {self.session_id}",
               f"stopped   {self.stop_reason} after {self.elapsed_seconds:.0f} s"
               + (f" ({self.stop_detail})" if self.stop_detail else ""),
               f"cost      ${self.spent_usd:.4f} ({self.tokens} tokens)",
               *([outstanding_line(self.outstanding_usd, self.outstanding_matches, self.outstanding_batches,
                                   self.session_id, label="          ")] if self.outstanding_batches else []),
               *([self.batches.line("batches   ")] if self.batches else []),
               *([] if self.stop_reason == "refused" else  # a refused goal made nothing: no results to count
                 [f"results   {self.hypotheses} hypothes{'i' if self.hypotheses == 1 else 'e'}s, {self.matches} "
                  f"match{'' if self.matches == 1 else 'es'}, top Elo {self.top_elo:.0f}"])]
        g = self.grounding
        if g:
            out.append(f"evidence  {g.get('evidence_proposed', 0):.0f} proposed: {g.get('evidence_verified', 0):.0f}"
                       f" verified, {g.get('evidence_misquoted', 0):.0f} misquoted, "
                       f"{g.get('evidence_unseen', 0):.0f} unseen")
        if "claims_total" in g:
            from cosci.grounding.report import NO_CLAIMS, NOT_AUDITED, claims_line

            audit = f"; {NO_CLAIMS}" if not g["claims_total"] else f"; audit score {g['audit_score']:.2f}" \
                if "audit_score" in g else f"; {NOT_AUDITED}" if self.audit.startswith(NOT_AUDITED) \
                else "; audit unchecked"
            out.append(f"claims    {claims_line(g)}{audit}"
                       + (f", agreement {g['audit_agreement']:.0%}" if "audit_agreement" in g else ""))
        if self.stop_reason not in ("interrupted", "error"):  # a failed session wrote no overview (stderr has its
            # error's line); an interrupted one says how to resume, last
            out.append(f"overview  {self.overview_path}")
            if self.overview_fallback:  # the file's first line says it too; a reader of the summary reads it here
                out.append(f"fallback  the overview was written from the store, not by the writer: "
                           f"{self.overview_fallback}")
            if (page := Path(self.overview_path).with_name("report.html")).is_file():  # README's example shows it
                out.append(f"report    {page}")
            if self.overview_withheld:
                out.append(f"withheld  the overview, by safety screening, {self.overview_withheld}; its text is in "
                           "final/overview.withheld.md")
        out.append(f"store     {self.store_path}")
        if self.mlflow_run_id:
            out.append(f"mlflow    run {self.mlflow_run_id} in {self.tracking_uri}")
            out.append(f"          mlflow ui --backend-store-uri {shlex.quote(self.tracking_uri or '')}")
        if self.stop_reason == "interrupted":  # in order: interrupted, what was saved, how to resume (design.md#resume)
            out.append(f"continue  cosci resume {self.session_id}")
        return out


def outstanding_line(usd: float, matches: int, batches: int, session_id: str, label: str) -> str:
    """The outstanding batch spend as its own figure (docs/design.md#batch-settlement)."""
    return (f"{label}outstanding ${usd:.4f} at most, held for {matches} batched matches in {batches} provider "
                f"batch{'es' if batches != 1 else ''} not yet settled (not in the cost above); `cosci status "
                f"{session_id}` or `cosci resume {session_id}` settles them")


def summarise(rt: SessionRuntime, reason: Any, overview: Path, run_id: str | None,
              stop_detail: str = "") -> SessionSummary:
    from cosci.grounding.report import audit_words, checked_overview, grounding_metrics
    from cosci.stats import collect
    from cosci.tournament.judge_stats import session_judge_stats
    from cosci.tracking import tracking_uri

    row = rt.store.sessions.get()
    stats = collect(rt.store, row.elapsed_seconds, rt.config.ranking.elo_initial)
    outstanding = rt.store.batches.outstanding()
    withheld = rt.store.safety.latest("overview")
    return SessionSummary(
        session_id=rt.session_id, stop_reason=str(getattr(reason, "value", reason)), spent_usd=stats.spent_usd,
        tokens=stats.tokens, hypotheses=stats.hypotheses, matches=stats.matches, top_elo=stats.top1_elo,
        elapsed_seconds=row.elapsed_seconds, overview_path=str(overview), store_path=str(rt.home.store_path),
        mlflow_run_id=run_id, tracking_uri=tracking_uri(rt.config) if run_id else None, stop_detail=stop_detail,
        grounding=grounding_metrics(rt.store),
        audit=audit_words(checked) if (checked := checked_overview(rt.store)) else "",
        overview_fallback=str((checked or {}).get("fallback_why") or ""),
        judge=session_judge_stats(rt.store).to_dict(),
        outstanding_usd=sum(b.reserved_usd for b in outstanding),
        outstanding_matches=sum(b.matches for b in outstanding), outstanding_batches=len(outstanding),
        batches=batch_spend(rt.store), overview_withheld=withheld.line() if withheld and withheld.acted else "")
