"""The text lines of ``cosci status`` and ``cosci report``: counts, spend, cache reads, active time, grounding,
the researcher's inputs, the tournament's standing and judge statistics, and what safety screening quarantined or
flagged (design.md#report, design.md#safety).

Read-only over a session's store; the heavier readers (the standing, the judge statistics, LiteLLM's price table)
are imported at their first call, so that the command line stays light at start-up.
"""

from __future__ import annotations

from cosci.domain import BT_INTERVAL_LABEL
from cosci.errors import CosciError
from cosci.grounding.report import status_lines
from cosci.session.folder import SessionFolder, nothing_yet, shown_status
from cosci.session.summary import batch_spend, outstanding_line
from cosci.store import SessionStore
from cosci.store.standing import release_hint, releases
from cosci.text import bidi_escaped, counted, one_line, plural


def _register_session_prices(folder: SessionFolder) -> None:
    """Register the prices of the session's configured models in this process (LiteLLM's cost table), so that a
    figure priced at list price (the batches' saving) matches the session's own summary; a config that no longer
    validates leaves the table as it is (the figure then reads 0)."""
    from cosci.config.load import ConfigError
    from cosci.llm.gateway.providers import register_providers

    try:
        register_providers(folder.frozen_config())
    except (CosciError, ConfigError):
        return


def failed_because(store: SessionStore) -> str:
    """`` (<the error's line>)`` of a failed session's last ``session_failed`` event, or ``""``: the status of a
    session failed on an unreachable host read "error" alone (design.md#unreachable-hosts)."""
    events = store.logs.events("session_failed")
    error = str(events[-1]["payload"].get("error", "")) if events else ""
    return f" ({one_line(error.removeprefix('SessionFailed: '), 300)})" if error else ""


def status_report(folder: SessionFolder, store: SessionStore) -> list[str]:
    """The lines of ``cosci status``: counts, spend, cache reads, active time, grounding, safety."""
    row = store.sessions.get()
    spend = store.logs.spend()
    out: list[str] = []
    shown = folder.shown_status(row.status)
    held = folder.is_running() and shown != "running"  # e.g. paused: its process waits (cosci resume continues it)
    ended = shown in ("done", "failed", "refused")  # its process writes the summary and closes the MLflow run
    process = (", its process finishing" if ended else ", its process still running") if held else ""
    out.append(f"session      {row.id} ({shown}{process})")
    out.append(f"goal         {one_line(bidi_escaped(row.research_goal), 200)}")
    out.append(f"stop reason  {row.stop_reason or '-'}{failed_because(store) if row.status == 'failed' else ''}")
    none = nothing_yet(store)  # no leaderboard, no judge statistics to explain (design.md#cli)
    out.append(f"hypotheses   {f'none: {none}' if none else hypotheses_line(store)}")
    out.append(f"reviews      {len(store.hypotheses.reviews())}")
    out.append(f"matches      {store.matches.count()} ({store.matches.count(valid_only=True)} with a valid verdict)")
    for line in [] if none else tournament_lines(store):  # BT leaders with CIs, judge statistics (design.md#tournament)
        out.append(f"             {line}")
    out.append(
        f"feedback     {len(store.logs.feedback(source='meta_review'))} system, "
        f"{len(store.logs.feedback(source='human'))} from cosci feedback"
    )
    out.append(f"researcher   {researcher_line(store)}")
    tasks = ", ".join(f"{k} {v}" for k, v in sorted(store.tasks.counts().items()))
    out.append(f"tasks        {tasks or 'none queued'}")
    total = sum(s["usd"] for s in spend.values())
    out.append(
        f"spent        ${total:.4f} of ${row.budget_usd:.2f}  "
        + ", ".join(f"{a} ${s['usd']:.4f}" for a, s in sorted(spend.items()))
    )
    if pending := store.batches.outstanding():  # its own figure: the provider holds these, the spend lacks them
        out.append(outstanding_line(sum(b.reserved_usd for b in pending), sum(b.matches for b in pending),
                                    len(pending), row.id, label="             "))
    if store.batches.counts():  # the list prices of the session's models price the saving, as in its summary
        _register_session_prices(folder)
    if batched := batch_spend(store):  # ranking's spend through provider batches, what it saved (design.md#batches)
        out.append(batched.line("batches      "))
    # how much of the input the provider's prompt cache served (design.md#caching)
    shares = store.logs.cache_read_shares()
    if shares:
        out.append(f"cache reads  {shares.pop('total', 0.0):.1%} of input tokens  "
                   + ", ".join(f"{a} {s:.1%}" for a, s in sorted(shares.items())))
    for model, (n, speed, first) in store.logs.call_speeds().items():  # measured, beside the configured speeds
        out.append(f"speed        {model}: {speed:.0f} tokens/s median over {n} {plural(n, 'call')}"
                   + (f", first token after {first:.1f} s (streamed)" if first is not None else ""))
    for step, n in store.logs.degradations():  # a model was unavailable: its calls went down the chain
        out.append(f"degraded     {step} ({n} {plural(n, 'call')})")
    out.append(f"active time  {row.elapsed_seconds:.0f} s of {row.wall_clock_seconds:.0f} s")
    out += status_lines(store)  # evidence verified / misquoted / unseen, the overview's claims and audit
    if row.mlflow_run_id:
        out.append(f"mlflow run   {row.mlflow_run_id}")
    return out + safety_lines(store)


def researcher_line(store: SessionStore) -> str:
    """The researcher's ratings (preferences and scores) and experimental results by outcome, ``cosci rate`` /
    ``cosci result``, and how many were withdrawn (design.md#researcher-ratings, design.md#experimental-results)."""
    from cosci.store.researcher import OUTCOMES

    ratings, results = store.researcher.ratings(), store.researcher.observations()
    kinds = {k: sum(r.kind == k for r in ratings) for k in ("preference", "score")}
    outcomes = ", ".join(f"{o} {n}" for o in OUTCOMES if (n := sum(r.outcome == o for r in results)))
    withdrawn = (len(store.researcher.ratings(withdrawn=True)) - len(ratings)
                 + len(store.researcher.observations(withdrawn=True)) - len(results))
    # a pair's later preference replaces its earlier one in the fit (design.md#researcher-ratings): said, so a count
    # of preferences is not read as that many verdicts
    replaced = kinds["preference"] - len(store.researcher.current_preferences())
    return (f"{counted(len(ratings), 'rating')} ({counted(kinds['preference'], 'preference')}"
            + (f", {replaced} replaced by a later one of the same pair" if replaced else "")
            + f", {counted(kinds['score'], 'score')}), {counted(len(results), 'experimental result')}"
            + (f" ({outcomes})" if outcomes else "") + (f"; {withdrawn} withdrawn, kept in the record"
                                                        if withdrawn else ""))


def hypotheses_line(store: SessionStore) -> str:
    """The pool's size by state, then the hypotheses outside it (rejected, retired, quarantined) as their own
    counts and the total, so every hypothesis the session made is counted once (design.md#states)."""
    states = store.hypotheses.state_counts()
    outside = ("rejected", "retired", "quarantined")
    pool = {k: v for k, v in sorted(states.items()) if k not in outside}
    by_state = ", ".join(f"{k} {v}" for k, v in pool.items()) or "none"
    return (f"{sum(pool.values())} in the pool ({by_state}); "
            + ", ".join(f"{states.get(k, 0)} {k}" for k in outside) + f"; {sum(states.values())} in all")


def safety_lines(store: SessionStore) -> list[str]:
    """Screening counts, the goal's verdict (and who decided it), disagreements, and every quarantined or flagged
    hypothesis with its verdict."""
    counts = store.safety.counts()
    if not counts:
        off = store.logs.events("safety_disabled")
        return ["safety       off (safety.enabled=false)" if off else "safety       nothing screened"]
    goal = store.safety.latest("goal")
    by = {"screen": " (decided by the offline screen)", "classifier": ""}.get(goal.screen.get("decided_by", ""), "") \
        if goal else ""
    released = releases(store)
    lines = [f"safety       {sum(counts.values())} screened: "
             + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
             + (f" ({len(released)} released by the researcher)" if released else "")
             + (f"; goal {goal.line()}{by}" if goal else "")]
    for v in store.safety.all():
        if v.disagreement:
            lines.append(f"disagreement {v.subject}{' [' + v.subject_id + ']' if v.subject_id else ''}: the offline "
                         f"screen would refuse ({v.screen.get('line', '')}); {v.line()}")
    for h in store.hypotheses.all(states=("quarantined",)):  # its id, category and release command only
        verdict = store.safety.latest("hypothesis", h.id)
        cats = ", ".join(verdict.categories) if verdict and verdict.categories else "no category"
        lines.append(f"quarantined  [{h.id}] {verdict.decision if verdict else 'no verdict recorded'} ({cats}); "
                     f"text withheld, `{release_hint(store.session_id, h.id)}` releases it")
    for v in store.safety.all("hypothesis"):
        kept = store.hypotheses.get(v.subject_id or "")
        if v.decision == "flag" and kept is not None and kept.state != "quarantined":  # kept, marked
            lines.append(f"flagged      [{kept.id}] {one_line(kept.title, 80)}: {v.line()}")
    return lines + [f"released     {r.line()}" for r in released]  # who, when, why (design.md#safety)

def report_lines(store: SessionStore) -> list[str]:
    """``cosci report``: the overview (under a note when researcher inputs came after it), the current leaderboard
    (the standing ``cosci status`` shows), the researcher's ratings and results, then what safety screening
    quarantined or flagged (Markdown; design.md#report)."""
    from cosci.report.standing import later_inputs, leaderboard_lines

    row = store.sessions.get()
    out: list[str] = []
    later = later_inputs(store) if row.final_overview else None
    none = nothing_yet(store)  # one line, no empty leaderboard explained (design.md#cli)
    if row.final_overview:  # the overview keeps the order of its time; the leaderboard is the current one
        if later:
            out.append(f"> {later.note()}\n")
        out.append(row.final_overview.rstrip())
        out.append(f"\n{none}" if none else "\n# Current leaderboard\n")
    else:
        out.append(f"# Session {row.id} ({shown_status(store)}): {none}" if none else
                   f"# Session {row.id}: no overview yet ({shown_status(store)}); leaderboard so far\n")
    if none:
        return out + stepped_down(store) + safety_sections(store)
    out += leaderboard_lines(store)  # the standing `cosci status` shows (design.md#report)
    out.append("\n".join(tournament_lines(store)))
    from cosci.agents.researcher_context import agreement, agreement_line, researcher_lines
    from cosci.tournament.judge_stats import ranking_setting

    heading = "# Researcher ratings and experimental results"
    in_overview = heading in (row.final_overview or "")
    said = researcher_lines(store)
    if said and (not in_overview or later):  # apart from the judge's verdicts (design.md#researcher-ratings)
        prior_sd = float(ranking_setting(store, "bt_prior_sd", 1.0))
        out.append(f"\n{heading}{' (now, with the inputs after the overview)' if in_overview else ''}\n")
        out.append("\n".join(f"- {line}" for line in said))
        out.append(f"- {agreement_line(agreement(store, prior_sd))}")
    return out + stepped_down(store) + safety_sections(store)


def stepped_down(store: SessionStore) -> list[str]:
    """The report's section of the models that answered instead of the configured ones (design.md#routing), also
    when no hypothesis was generated yet: a session stopped early is often stopped by them."""
    steps = store.logs.degradations()
    return ["\n# Models stepped down (design.md#routing)\n",
            "\n".join(f"- {step}: {n} {plural(n, 'call')}" for step, n in steps)] if steps else []


def safety_sections(store: SessionStore) -> list[str]:
    """The report's sections of what safety screening quarantined or flagged, and what the researcher released."""
    out: list[str] = []
    lines = safety_lines(store)
    for word, heading in (("quarantined", "Quarantined by safety screening (not in the tournament or the overview)"),
                          ("flagged", "Flagged by safety screening (kept)"),
                          ("released", "Released by the researcher (`cosci release`)")):
        marked = [line.removeprefix(word).strip() for line in lines if line.startswith(word)]
        if marked:  # listed with categories and rationale (design.md#safety)
            out.append(f"\n# {heading}\n")
            out.append("\n".join(f"- {line}" for line in marked))
    return out


def tournament_lines(store: SessionStore) -> list[str]:
    """The BT top 5 of the current standing (score and interval, logits, under the interval's name
    :data:`~cosci.domain.BT_INTERVAL_LABEL`), the hypotheses out of the ranking with why,
    and the judge statistics, flagged when position-biased (design.md#tournament, design.md#report)."""
    from cosci.report.standing import standing
    from cosci.tournament.judge_stats import ranking_setting, session_judge_stats

    current = standing(store)  # the one standing `cosci report` shows too
    out = [f"BT scores (logits) with their {BT_INTERVAL_LABEL}:", current.top_line(5),
           *filter(None, [current.apart_line()])]
    tolerance = float(ranking_setting(store, "first_position_flag", 0.15))
    share = float(ranking_setting(store, "dual_order_biased_share", 0.0))
    return out + session_judge_stats(store).lines(tolerance, share)
