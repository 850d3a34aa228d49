"""The researcher's ratings and the lab's results as the agents, the overview and the report see them.

- :func:`agreement`: each researcher preference against the judge-only Bradley–Terry order (the fit without the
  researcher's verdicts), so the report can show how far the tournament and the researcher agree
  (design.md#researcher-ratings); :func:`agreement_line` words it, the one line every reader shows, with how many
  preferences were left out of the comparison (one names a hypothesis out of the ranking or not yet in the
  tournament).
- :func:`researcher_lines`: ratings and results in plain text for meta-review prompts (quoted by the caller).
- :func:`results_block`: the experimental results quoted for generation and evolution prompts (evidence,
  design.md#experimental-results).
- :func:`researcher_appendix`: the overview's section listing both.
"""

from __future__ import annotations

from dataclasses import dataclass

from cosci.safety.quoting import quote_untrusted
from cosci.store import SessionStore
from cosci.store.standing import OUT_OF_RANKING
from cosci.text import counted
from cosci.tournament.bt import fit_bt

OUT_OF_RANKING_NAMED = "out of the ranking"
"""Why a preference is not compared: it names a quarantined, rejected or retired hypothesis (design.md#report)."""
NOT_YET_PLAYING = "not yet in the tournament"
"""Why a preference is not compared: it names a draft or reviewed hypothesis, not yet a tournament player."""


@dataclass(frozen=True)
class Agreement:
    """One preference (not a tie) and the judge-only BT order: ``agrees`` when the researcher's preferred
    hypothesis has the higher judge-only BT score; None when either is not in the fit (tournament players only),
    and then ``outside`` says why (:data:`OUT_OF_RANKING_NAMED` before :data:`NOT_YET_PLAYING`; "" when compared)."""

    preferred: str
    other: str
    agrees: bool | None
    outside: str = ""


def agreement(store: SessionStore, prior_sd: float) -> list[Agreement]:
    """Each current non-tie preference (the latest of its pair, :meth:`Researcher.current_preferences`) against the
    BT fit on the judge's verdicts alone (tournament players), oldest first; ``prior_sd`` is the fit's prior
    (logits, ``ranking.bt_prior_sd``; design.md#researcher-ratings)."""
    prefs = [r for r in store.researcher.current_preferences() if r.prefer in ("a", "b") and r.hyp_b]
    if not prefs:
        return []
    ids = [h.id for h in store.hypotheses.ranked()]
    fit = fit_bt(ids, store.matches.verdicts(), prior_sd) if ids else None
    index = fit.index() if fit is not None else {}
    out = []
    for r in prefs:
        preferred, other = (r.hyp_a, str(r.hyp_b)) if r.prefer == "a" else (str(r.hyp_b), r.hyp_a)
        if fit is not None and preferred in index and other in index:
            out.append(Agreement(preferred, other, fit.score(preferred)[0] > fit.score(other)[0]))
            continue
        states = [h.state if (h := store.hypotheses.get(hid)) else None for hid in (preferred, other)
                  if hid not in index]
        apart = any(s is None or s in OUT_OF_RANKING for s in states)
        out.append(Agreement(preferred, other, None, OUT_OF_RANKING_NAMED if apart else NOT_YET_PLAYING))
    return out


def agreement_line(rows: list[Agreement]) -> str:
    """The one wording of the researcher's agreement (the overview's appendix, ``cosci report``, the page, the md
    export): ``researcher vs tournament: 1 of 1 preference agrees with the judge-only Bradley–Terry order (2 more
    name a hypothesis out of the ranking)``; the parenthesis counts the preferences left out of the comparison, by
    :attr:`Agreement.outside`, and is absent when none is. With none compared: ``no preference to compare with the
    judge-only Bradley–Terry order``, with the same parenthesis (design.md#researcher-ratings)."""
    known = [a for a in rows if a.agrees is not None]
    left = [(n, why) for why in (OUT_OF_RANKING_NAMED, NOT_YET_PLAYING)
            if (n := sum(1 for a in rows if a.outside == why))]
    more = " more" if known else ""
    said = "; ".join(f"{n}{more} {'names' if n == 1 else 'name'} a hypothesis {why}" for n, why in left)
    note = f" ({said})" if said else ""
    if not known:
        return f"researcher vs tournament: no preference to compare with the judge-only Bradley–Terry order{note}"
    agreed = sum(1 for a in known if a.agrees)
    return (f"researcher vs tournament: {agreed} of {counted(len(known), 'preference')} "
            f"{'agrees' if agreed == 1 else 'agree'} with the judge-only Bradley–Terry order{note}")


def researcher_lines(store: SessionStore) -> list[str]:
    """Ratings and results, one plain line each (unquoted: the caller quotes them); withdrawn ones are left out, and
    a preference a later rating of its pair replaced says so."""
    lines = []
    current = {r.id for r in store.researcher.current_preferences()}
    for r in store.researcher.ratings():
        why = f" (why: {r.why})" if r.why else ""
        if r.kind == "preference":
            said = {"a": f"prefers {r.hyp_a} over {r.hyp_b}", "b": f"prefers {r.hyp_b} over {r.hyp_a}",
                    "tie": f"rates {r.hyp_a} and {r.hyp_b} equal"}[str(r.prefer)]
            later = "" if r.id in current else " (replaced by a later rating of the pair)"
            lines.append(f"The researcher {said}{why}{later}.")
        else:
            lines.append(f"The researcher scores {r.hyp_a} {r.score}/5{why}.")
    for o in store.researcher.observations():
        lines.append(f"Experimental result on {o.hypothesis_id}: " + "; ".join(o.text().splitlines()))
    return lines


def researcher_block(store: SessionStore) -> str:
    """:func:`researcher_lines` quoted as one untrusted block ("" when there are none)."""
    lines = researcher_lines(store)
    return quote_untrusted("\n".join(f"- {line}" for line in lines), "researcher-ratings") if lines else ""


def results_block(store: SessionStore) -> str:
    """The experimental results with the hypotheses they test, quoted ("" when there are none)."""
    rows = []
    for o in store.researcher.observations():
        h = store.hypotheses.get(o.hypothesis_id)
        title = h.title if h else o.hypothesis_id
        rows.append(f"[{o.hypothesis_id}] {title}\n{o.text()}")
    return quote_untrusted("\n\n".join(rows), "experimental-results") if rows else ""


def researcher_appendix(store: SessionStore, prior_sd: float) -> str:
    """The overview's "Researcher ratings and experimental results" section ("" when there are none)."""
    lines = researcher_lines(store)
    if not lines:
        return ""
    rows = ["# Researcher ratings and experimental results", "",
            "Given by the researcher (`cosci rate`, `cosci result`), apart from the tournament's judge verdicts:", ""]
    rows += [f"- {line}" for line in lines]
    rows += ["", f"- {agreement_line(agreement(store, prior_sd))}"]
    return "\n".join(rows) + "\n"
