"""What the session report shows, read from the store (no rendering here, no framework imports).

:func:`collect` turns one :class:`~cosci.store.SessionStore` into a :class:`ReportData` of plain values: the
header (goal, research plan, models per agent, stop reason, spend per agent against the budget, active time,
judge statistics when the store has them), the safety screening (every hit, whatever the decision), the
leaderboard, one section per hypothesis (its reviews and its
matches with their debate transcripts), the Elo trajectories and the lineage edges. Every string in it comes
from the store unescaped: the template escapes it (model and literature text is untrusted, design.md#prompts).

Columns that other parts of cosci add later are shown as soon as the store carries them, without depending
on them: Bradley–Terry score and confidence interval (``bt_score``, ``bt_ci_low``, ``bt_ci_high`` in
:func:`cosci.tracking.artifacts.leaderboard_rows`), the excerpt check of citations and review evidence
(``status``: ``verified`` / ``misquoted``, with ``mismatch``; older stores say ``unverified``), each
hypothesis's grounding, the overview's claim map with its statuses, support check and blind audit, and judge
statistics (:func:`judge_statistics`: computed from the match rows).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from cosci.config.schema import CosciConfig
from cosci.domain import UNGROUNDED, Hypothesis
from cosci.grounding.evidence import session_counts
from cosci.grounding.report import audit_words, claims_document, claims_line
from cosci.report.prior_search import PriorSearch, summary
from cosci.report.standing import OUT_OF_RANKING, later_inputs, standing
from cosci.store import SessionStore
from cosci.store.standing import WITHHELD, none_yet, release_hint, releases, shown, shown_verdict
from cosci.text import bidi_escaped
from cosci.tracking.artifacts import elo_trajectories, leaderboard_rows

BT_COLUMNS = ("bt_score", "bt_ci_low", "bt_ci_high")
"""Bradley–Terry columns of the leaderboard (design.md#tournament), shown when present."""
SCORE_KEYS = ("novelty", "correctness", "testability", "feasibility")
"""Review scores (design.md#reflection: record_review)."""


@dataclass(frozen=True)
class MatchView:
    """One match seen from one hypothesis: the opponent, the outcome for this hypothesis, Elo points."""

    id: str
    opponent: str
    mode: str
    outcome: str  # "won" | "lost" | "invalid"
    elo_before: float
    elo_after: float
    rationale: str
    transcript: list[dict[str, Any]]
    created_at: float


@dataclass
class HypothesisView:
    """A hypothesis section: the row's fields, its reviews (newest first) and matches (oldest first)."""

    row: dict[str, Any]
    mechanism: str
    anticipated_outcomes: str
    novelty_argument: str
    entities: list[str]
    citations: list[dict[str, Any]]
    contract: tuple[tuple[str, str], ...]
    """The falsification contract as ``(label, text)`` (docs/design.md#falsification)."""
    prior_work: list[dict[str, Any]]
    """The nearest prior work, nearest first, each with what the latest full review said of it (``verdict``:
    ``differs`` / ``already reported``, "" before the review; docs/design.md#prior-work)."""
    prior_search: PriorSearch | None
    """What the novelty search searched and found, in sentences (:func:`cosci.report.prior_search.summary`; None
    before it ran)."""
    reviews: list[dict[str, Any]] = field(default_factory=list)
    matches: list[MatchView] = field(default_factory=list)


@dataclass
class ReportData:
    """Everything the report page shows. Units: USD, tokens, Elo points, seconds (epoch for times)."""

    session: dict[str, Any]
    plan: dict[str, Any] | None
    models: dict[str, dict[str, str]]
    spend: dict[str, dict[str, float]]
    budget_usd: float
    judge: dict[str, Any] | None
    leaderboard: list[dict[str, Any]]
    apart: list[dict[str, Any]]
    hypotheses: list[HypothesisView]
    trajectories: dict[str, list[tuple[int, float]]]
    edges: list[tuple[str, str, str]]  # (parent id, child id, mode)
    overview: str | None
    has_bt: bool
    generated_at: float
    safety: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, int] = field(default_factory=dict)
    """Evidence counts (proposed, verified, misquoted, unseen)."""
    researcher: list[str] = field(default_factory=list)
    """The researcher's ratings and experimental results, one line each, apart from the judge verdicts
    (design.md#researcher-ratings)."""
    researcher_agreement: str = ""
    """How many preferences agree with the judge-only Bradley–Terry order, and how many were left out of it
    (:func:`cosci.agents.researcher_context.agreement_line`; "" without ratings)."""
    overview_note: str = ""
    """Said above an overview written before later researcher inputs (when, how many; "" otherwise)."""
    claims: dict[str, Any] | None = None
    """The overview's ``claims.json`` document (:func:`cosci.grounding.report.claims_document`), None before it."""
    refuted: set[str] = field(default_factory=set)
    """Hypotheses a researcher's experimental result refuted (``cosci result --outcome refuted``, not withdrawn;
    design.md#experimental-results): marked in the Elo plot."""
    none_yet: str = ""
    """Said instead of the leaderboard, ratings, lineage, claims and hypotheses when the session holds no hypothesis
    (:func:`cosci.store.standing.none_yet`, as ``cosci report`` says it; "" otherwise; design.md#cli)."""
    stepped_down: list[tuple[str, int]] = field(default_factory=list)
    """The steps down the degradation chain, ``(<model> -> <model>, calls)`` (design.md#routing)."""

    @property
    def claims_counts(self) -> str:
        """``5 in the overview: 1 supported, 4 hypothesis_only`` ("" before the overview)."""
        return claims_line(self.claims) if self.claims else ""

    @property
    def audit_words(self) -> str:
        """The blind audit in one phrase (:func:`cosci.grounding.report.audit_words`: ``not audited: no
        independent model ...`` carries no score; "" before the overview)."""
        return audit_words(self.claims) if self.claims else ""

    @property
    def spent_usd(self) -> float:
        return sum(s["usd"] for s in self.spend.values())

    @property
    def ids(self) -> set[str]:
        return {h.row["id"] for h in self.hypotheses}


def models_per_agent(snapshot: dict[str, Any]) -> dict[str, dict[str, str]]:
    """``{agent: {mode: LiteLLM model}}`` from the session's frozen config (design.md#routing)."""
    from cosci.llm.gateway.routing import Router  # plain config logic: no litellm import

    try:
        config = CosciConfig.model_validate(snapshot)
    except ValueError:  # a snapshot from an older schema: show no models rather than fail the report
        return {}
    router = Router(config)
    return {a: {m: router.route(a, m).model for m in cfg.modes} for a, cfg in config.agents.items()}


def _review(r: Any) -> dict[str, Any]:
    return {"id": r.id, "mode": r.mode, "verdict": r.verdict, "scores": r.scores, "notes": r.notes,
            "evidence": r.evidence, "assumptions": r.assumptions, "weakest_assumption": r.weakest_assumption,
            "kill_experiment": r.kill_experiment, "prior_work": r.prior_work, "created_at": r.created_at}


def _matches_by_hypothesis(store: SessionStore, quarantined: set[str]) -> dict[str, list[MatchView]]:
    """Each hypothesis's matches; one with a quarantined hypothesis keeps its outcome and Elo, its rationale and
    debate transcript withheld (they quote it; design.md#safety)."""
    out: dict[str, list[MatchView]] = {}
    for m in store.matches.all():
        withheld = bool({m.hyp_a, m.hyp_b} & quarantined)
        transcript = store.matches.transcript(m.id) if m.mode == "debate" and not withheld else []
        rationale = WITHHELD if withheld else m.rationale
        for me, other, before, after in ((m.hyp_a, m.hyp_b, m.elo_a_before, m.elo_a_after),
                                         (m.hyp_b, m.hyp_a, m.elo_b_before, m.elo_b_after)):
            outcome = "invalid" if not m.verdict_valid else "won" if m.winner == me else "lost"
            out.setdefault(me, []).append(MatchView(m.id, other, m.mode, outcome, before, after, rationale,
                                                    transcript, m.created_at))
    return out


def _leaderboard_rows(store: SessionStore) -> tuple[list[dict[str, Any]], bool]:
    board = leaderboard_rows(store)  # the rows alone: polars' import was a fifth of `cosci rate` (design.md#startup)
    has_bt = all(c in board[0] for c in BT_COLUMNS) if board else True
    latest: dict[str, dict[str, Any]] = {}
    for r in store.hypotheses.reviews():  # newest first: keep the first seen per hypothesis
        latest.setdefault(r.hypothesis_id, _review(r))
    rows = []
    for row in board:
        review = latest.get(row["id"])
        row["verdict"] = review["verdict"] if review else None
        row["grounding"] = row.get("grounding") or UNGROUNDED
        row["scores"] = review["scores"] if review else {}
        rows.append(row)
    return rows, has_bt


def _prior_work(store: SessionStore, reviews: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Each hypothesis's nearest prior work with the latest full review's word on each record."""
    out: dict[str, list[dict[str, Any]]] = {}
    for p in store.hypotheses.prior_work():
        full = next((r for r in reviews.get(p.hypothesis_id, []) if r["mode"] == "full"), None)
        said = {c.get("source"): c for c in (full or {}).get("prior_work") or []}
        c = said.get(p.url) or said.get(p.source_id)
        verdict = "" if c is None else "differs" if c.get("differs") else "already reported"
        out.setdefault(p.hypothesis_id, []).append({"rank": p.rank, "source_id": p.source_id, "url": p.url,
                                                   "title": p.title, "similarity": p.similarity,
                                                   "measure": p.measure, "reason": p.reason, "verdict": verdict})
    return out


def _prior_searches(store: SessionStore) -> dict[str, PriorSearch | None]:
    """The latest novelty search per hypothesis in sentences (event ``prior_work_searched``)."""
    return {e["payload"].get("hypothesis_id", ""): summary(e["payload"])
            for e in store.logs.events("prior_work_searched")}


def _view(row: dict[str, Any], h: Hypothesis, reviews: list[dict[str, Any]], matches: list[MatchView],
          prior: list[dict[str, Any]], search: PriorSearch | None) -> HypothesisView:
    return HypothesisView(row=row, mechanism=h.mechanism, anticipated_outcomes=h.anticipated_outcomes,
                          novelty_argument=h.novelty_argument, entities=h.entities, citations=h.citations,
                          contract=h.contract(), prior_work=prior, prior_search=search, reviews=reviews,
                          matches=matches)


def judge_statistics(store: SessionStore) -> dict[str, Any] | None:
    """The judge statistics of the session's matches (design.md#position-bias, design.md#judges), None before the
    first match: ``sentences`` (:func:`cosci.report.judge_text.judge_sentences`), ``warnings`` (a significant
    position bias, or a large rate that is not significant), ``lines`` (the summary lines ``cosci status`` prints),
    ``figures`` (name -> value, None where nothing was measured) and ``judges`` (tier -> its figures, with
    ``agreement_text``). A held-out agreement over fewer than ``FEW_VERDICTS`` verdicts is said as ``cosci
    status`` says it, a count (``1 of 1 held-out verdict``), not a rate (design.md#cli)."""
    from cosci.report.judge_text import judge_sentences
    from cosci.tournament.judge_stats import FEW_VERDICTS, agreement_text, ranking_setting, session_judge_stats

    if not store.matches.count():
        return None
    stats = session_judge_stats(store)
    lines = stats.lines(float(ranking_setting(store, "first_position_flag", 0.15)),
                        float(ranking_setting(store, "dual_order_biased_share", 0.0)))
    figures = stats.to_dict()
    judges = figures.pop("judges")
    if 0 < stats.bt_agreement_n < FEW_VERDICTS and figures["bt_agreement"] is not None:
        figures["bt_agreement"] = agreement_text(stats.bt_agreement, stats.bt_agreement_n)
    for tier, j in stats.judges.items():
        judges[tier]["agreement_text"] = agreement_text(j.agreement, j.agreement_n)
    warnings = [line[:1].upper() + line[1:] for line in lines if line.startswith(("WARNING", "note:"))]
    return {"sentences": judge_sentences(stats), "warnings": warnings, "lines": lines, "judges": judges,
            "figures": figures, "biased": stats.position_bias}


def safety_view(store: SessionStore) -> dict[str, Any]:
    """The report's safety section: ``state`` (on / off / nothing screened), decision counts, who decided the
    goal, one row per verdict with a hit (term or screen hit, flag, block or disagreement), oldest first (a
    quarantined hypothesis's rationale and terms withheld), ``quarantined`` (id, categories, the release command)
    and ``released`` (one line per ``cosci release``: who, when, why, its state now)."""
    verdicts = store.safety.all()
    if not verdicts:
        return {"state": "off" if store.logs.events("safety_disabled") else "nothing screened", "rows": []}
    goal = store.safety.latest("goal")
    held = {h.id for h in store.hypotheses.all(states=("quarantined",))}
    verdicts = [shown_verdict(v, held) for v in verdicts]  # a quarantined hypothesis's: no rationale, no terms
    rows = [{"subject": v.subject, "subject_id": v.subject_id, "decision": v.decision, "acted": v.acted,
             "categories": v.categories, "matched": v.screen.get("line", ""), "rationale": v.rationale,
             "model_decision": v.model_decision, "disagreement": v.disagreement,
             "decided_by": v.screen.get("decided_by", "classifier")} for v in verdicts if v.hit]
    quarantined = [{"id": hid, "categories": v.categories if (v := store.safety.latest("hypothesis", hid)) else [],
                    "release": release_hint(store.session_id, hid)} for hid in sorted(held)]
    return {"state": "on", "counts": store.safety.counts(), "screened": len(verdicts), "rows": rows,
            "decided_by": goal.screen.get("decided_by", "classifier") if goal else None,
            "quarantined": quarantined, "released": [r.line() for r in releases(store)]}


def collect(store: SessionStore, elo_initial: float = 1200.0, status: str | None = None) -> ReportData:
    """Read the report's content from the store (works on a running session: it only reads).

    Args:
        record: an open session store.
        elo_initial: the initial Elo rating (points; design.md#tournament: 1200) the trajectories start from.
        status: the session's status as ``cosci status`` shows it (``SessionFolder.shown_status``: a killed
            session's ``running`` row is ``stopped``); None: the stored one (the session's own process).
    """
    row = store.sessions.get()
    rows, has_bt = _leaderboard_rows(store)
    current = standing(store)
    order = {e.id: i for i, e in enumerate(current.ranked)}  # the order `cosci status` shows
    why = {e.id: e.why for e in current.apart}  # "refuted by result O-...", as the text report says
    ranked = sorted((r for r in rows if r["state"] not in OUT_OF_RANKING),
                    key=lambda r: order.get(r["id"], len(order)))
    for r in rows:
        r["rank"] = None
        r["why"] = why.get(r["id"], r["state"])
        r["release"] = release_hint(row.id, r["id"]) if r["state"] == "quarantined" else ""
    for i, r in enumerate(ranked, 1):
        r["rank"] = i
    hyps = {h.id: shown(h) for h in store.hypotheses.all()}  # a quarantined one's text withheld (design.md#safety)
    held = {h.id for h in hyps.values() if h.state == "quarantined"}
    reviews: dict[str, list[dict[str, Any]]] = {}
    for rv in store.hypotheses.reviews():
        if rv.hypothesis_id not in held:  # a review restates its hypothesis
            reviews.setdefault(rv.hypothesis_id, []).append(_review(rv))
    matches = _matches_by_hypothesis(store, held)
    prior, searches = _prior_work(store, reviews), _prior_searches(store)
    for hid in held:  # its nearest records and search line were found from its text
        prior.pop(hid, None), searches.pop(hid, None)
    later = later_inputs(store) if row.final_overview else None
    views = [_view(r, hyps[r["id"]], reviews.get(r["id"], []), matches.get(r["id"], []), prior.get(r["id"], []),
                   searches.get(r["id"])) for r in rows]
    edges = [(p, h.id, h.mode) for h in hyps.values() for p in h.parent_ids if p in hyps]
    session = {"id": row.id, "goal": bidi_escaped(row.research_goal), "status": status or row.status,
               "stop_reason": row.stop_reason,
               "models_choice": row.models_choice, "elapsed_seconds": row.elapsed_seconds,
               "wall_clock_seconds": row.wall_clock_seconds, "created_at": row.created_at,
               "mlflow_run_id": row.mlflow_run_id}
    return ReportData(
        session=session, plan=row.research_plan, models=models_per_agent(row.config_snapshot),
        spend=store.logs.spend(), budget_usd=row.budget_usd, judge=judge_statistics(store),
        leaderboard=ranked, apart=[r for r in rows if r["state"] in OUT_OF_RANKING], hypotheses=views,
        trajectories=elo_trajectories(store, elo_initial), edges=edges, overview=row.final_overview,
        overview_note=later.note("in the Leaderboard section below") if later else "",
        has_bt=has_bt, generated_at=time.time(), safety=safety_view(store),
        evidence=session_counts(store).to_dict(), claims=claims_document(store),
        refuted={o.hypothesis_id for o in store.researcher.observations() if o.outcome == "refuted"},
        none_yet="" if store.hypotheses.state_counts() else none_yet(row.id, status or row.status, row.stop_reason),
        stepped_down=store.logs.degradations(),
        **researcher_view(store),
    )


def researcher_view(store: SessionStore) -> dict[str, Any]:
    """``researcher`` and ``researcher_agreement`` of :class:`ReportData`."""
    from cosci.agents.researcher_context import agreement, agreement_line, researcher_lines

    lines = researcher_lines(store)
    if not lines:
        return {}
    prior_sd = float((store.sessions.get().config_snapshot.get("ranking") or {}).get("bt_prior_sd", 1.0))
    return {"researcher": lines, "researcher_agreement": agreement_line(agreement(store, prior_sd))}
