"""The judge statistics in sentences a researcher reads (docs/design.md#position-bias, docs/design.md#judges).

:class:`cosci.tournament.judge_stats.JudgeStats` carries the figures under their metric names
(``bt_agreement_in_sample``, ``flip_rate``…, the names MLflow logs); the report says each as a sentence with its
count, its interval and the interval's method (:data:`cosci.tournament.rerun.WILSON_LABEL`), and "not measured
yet" where a figure has no denominator. Plain functions, so any page can call them.
"""

from __future__ import annotations

import math

from cosci.text import counted
from cosci.tournament.judge_stats import FOLDS, JudgeStats, Share, agreement_text
from cosci.tournament.rerun import SIMULATED_REPEAT, WILSON_LABEL


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _share(s: Share) -> str:
    """``52 % (95 % Wilson CI 41–63 %, nominal for independent calls)``."""
    return f"{_pct(s.rate)} ({WILSON_LABEL.replace('CI,', f'CI {100 * s.low:.0f}–{100 * s.high:.0f} %,')})"


def _calls(stats: JudgeStats) -> str:
    parts = [] if math.isnan(stats.draw_rate) else [f"{_pct(stats.draw_rate)} of valid matches ended in a draw"]
    if not math.isnan(stats.invalid_rate):
        parts.append(f"{_pct(stats.invalid_rate)} of calls gave no valid verdict")
    said = f"; {' and '.join(parts)}" if parts else ""
    return f"The judge made {counted(stats.calls, 'call')} over {counted(stats.matches, 'match', 'matches')}{said}."


def _first_shown(stats: JudgeStats) -> str:
    s = stats.first_shown
    if s.n == 0:
        return "No judging call has given a valid verdict yet, so the judge's preference for the first-shown " \
               "hypothesis is not measured."
    return (f"The hypothesis shown first won {_share(s)} of {counted(s.n, 'valid judging call')}; an unbiased "
            "judge gives 50 %.")


def _flips(stats: JudgeStats) -> str:
    f = stats.flips
    if f.n == 0:
        return "No match has been judged in both orders yet, so how often the order changes the verdict is not " \
               "measured."
    return (f"Of {counted(f.n, 'match', 'matches')} judged in both orders, {counted(f.k, 'verdict')} changed "
            f"with the order: {_share(f)}.")


def _agreement(stats: JudgeStats) -> list[str]:
    out = []
    if stats.bt_agreement_n:
        out.append(f"The Bradley–Terry fit agrees with {agreement_text(stats.bt_agreement, stats.bt_agreement_n)} "
                   f"when each verdict is left out of the fit it is checked against ({FOLDS}-fold "
                   "cross-validation).")
    if not math.isnan(stats.bt_agreement_in_sample):
        out.append(f"The Bradley–Terry fit agrees with {_pct(stats.bt_agreement_in_sample)} of the judge's "
                   "verdicts it was fitted on (optimistic: each verdict helped the fit).")
    return out


def _rerun(stats: JudgeStats) -> str:
    r = stats.rerun
    if r.reruns == 0:
        return ("No ordered pair has been judged twice yet, so whether the judge repeats its earlier verdict "
                f"(its repeat share) is not measured; the ranking simulator assumes {SIMULATED_REPEAT:g} for a "
                "judge with memory and 0 for an independent one.")
    rerun_share = Share(r.agreed, r.reruns, r.agreement, r.agreement_low, r.agreement_high)
    return (f"Judging the same ordered pair again, the judge gave the same verdict {_share(rerun_share)} of "
            f"{counted(r.reruns, 'rerun')}, where two fresh verdicts would agree {_pct(r.expected)}: a repeat "
            f"share of {r.repeat:.2f} (95 % CI {r.repeat_low:.2f}–{r.repeat_high:.2f}, read from the agreement's).")


def judge_sentences(stats: JudgeStats) -> list[str]:
    """The session's judge statistics as sentences, in reading order: calls, first-shown wins, order flips,
    agreement with the Bradley–Terry fit (held out, then in sample), reruns, the fit's order effect. A figure
    without a denominator is said to be not measured, never 0 or NaN."""
    out = [_calls(stats), _first_shown(stats), _flips(stats), *_agreement(stats), _rerun(stats)]
    if not math.isnan(stats.order_effect):
        out.append(f"The Bradley–Terry fit puts the first-shown hypothesis's advantage at "
                   f"{stats.order_effect:+.2f} logits.")
    return out
