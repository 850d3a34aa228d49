"""Keys and values that were renamed or removed, and how an old one is met (one name per concept:
design.md#vocabulary).

A new configuration that uses an old key (or an old value of a key whose values were renamed) is refused with one
line naming the new one; the frozen config of a session started before the change is carried over (renamed keys
and values moved, removed keys dropped) so the session still opens, resumes and reports; keys added since are
given their default there (:data:`ADDED`).
"""

# codemod: keep-file (this is the table of old names)
from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

RENAMED: dict[str, str] = {
    "run.debate_fraction": "generation.debate_share",
    "run.max_ideas": "run.max_hypotheses",
    "termination.min_ideas_before_stable": "termination.min_hypotheses_before_stable",
    "ranking.matches_per_batch": "ranking.matches_per_round",
    "ranking.strategy": "ranking.pairing",
    "evolution.strategies": "evolution.modes",
    "agents.supervisor": "agents.goal_parsing",
}
"""Old dotted key -> new dotted key (a key below a renamed one moves with it: ``agents.supervisor.modes...``).
``run.debate_fraction`` was generation's debate share, not ranking's debate; ``ranking.matches_per_batch`` counted
the matches of a tournament *round* (a *batch* is a provider's Message Batch); ``ranking.strategy`` chose the
pairing; evolution's strategies are its modes; the goal-parsing agent is named for its job (``supervisor`` is
the scheduling package)."""

RENAMED_VALUES: dict[str, dict[str, str]] = {
    "ranking.pairing": {"seed": "elo_buckets"},
}
"""Dotted key -> {old value: new value}. The pairing named after the specification (``seed``) is named for what it
does: Elo buckets (new arrivals, close Elo, random top half)."""

_DEBATE_TURNS = "debate turns are bounded by debate.max_turns alone (design.md#generation)"
_NO_TTL = "one process runs a session and a resume voids every lease; design.md#store"
REMOVED: dict[str, str] = {
    "lease.default_seconds": f"no task lease has a time limit ({_NO_TTL})",
    "lease.reflection_seconds": f"no task lease has a time limit ({_NO_TTL})",
    "lease.final_seconds": f"no task lease has a time limit ({_NO_TTL})",
    "agents.generation.modes.debate.max_iterations": _DEBATE_TURNS,
    "agents.ranking.modes.debate.max_iterations": _DEBATE_TURNS,
    "ranking.batch_decile": "a chosen match is batched by its players' chance of reaching the top k "
                            "(ranking.batch_top_chance, docs/design.md#batches)",
    "ranking.batch_max_wait_s": "a batch waits for ranking.batch_size matches; only the session's last batch goes "
                                "out with fewer (docs/design.md#batches)",
    "safety.embedded_block_needs_prescreen": "a tier marked models.tiers.<tier>.unable_to_classify is decided by "
                                             "the offline screen (docs/design.md#safety-screen)",
    "safety.exemplars": "the offline screen's intent model is shipped fitted (safety.intent, rebuilt by python -m "
                        "bench.safety --fit-intent; docs/design.md#safety-screen)",
}
"""Old dotted key -> why it is gone."""


def _renamed(key: str) -> tuple[str, str] | None:
    """``(old, new)`` for a key that is a renamed key or lies below one, with the new full key."""
    for old, new in RENAMED.items():
        if key == old or key.startswith(old + "."):
            return old, new + key[len(old):]
    return None


ADDED: dict[str, Any] = {
    "safety.model_answer_on": ["goal", "hypothesis", "overview", "feedback"],
    "ranking.batch": False,
    "ranking.batch_top_chance": 0.1,
    "ranking.batch_size": 4,
    "ranking.batch_poll_seconds": 30.0,
    "ranking.pairing": "uncertainty",
    "ranking.top_k": 5,
    "ranking.warmup_matches": 4,
    "ranking.temperature": 30.0,
    "ranking.pair_draw": "softmax",
    "ranking.boundary_power": 1.0,
    "ranking.rematch_information": False,
    "ranking.distance_bonus": 0.05,
    "ranking.dual_order": "off",
    "ranking.dual_order_elo_gap": 50.0,
    "ranking.dual_order_sample": 0.0,
    "ranking.dual_order_biased_share": 0.0,
    "ranking.judges": [],
    "ranking.bt_prior_sd": 1.0,
    "ranking.first_position_flag": 0.15,
    "ranking.bt_refit_stride": 1_000_000,  # what a frozen session ran with: a refit after every verdict
    "ranking.pair_candidates": 0,  # and every pair scored
    "ranking.bt_leaderboard_growth": 0.0,  # the leaderboard refitted at the pairing's cadence
    "generation.debate_grounding_searches": 2,
    "generation.debate_grounding_results": 3,
    "reflection.observation_search_results": 5,
    "reflection.falsification_terms": "falsification_terms.yaml",
    "reflection.vague_refutation_testability": 0.3,
    "reflection.prior_work_queries": 2,
    "reflection.prior_work_search_results": 5,
    "reflection.prior_work_kept": 3,
    "reflection.prior_work_chars": 1200,
    "metareview.overclaim_terms": "overclaim_terms.yaml",
    "metareview.claim_check_batch": 6,
    "metareview.claim_check_batch_constrained": 3,
    "metareview.claim_check_max_calls": 8,
    "metareview.claim_check_source_chars": 1500,
    "metareview.claim_check_constrained_verdicts": False,
    "agents.generation.modes.grounding": {"tier": "cheap", "thinking_tokens": 0, "max_output_tokens": 2048,
                                          "max_iterations": 1},
    "agents.metareview.modes.claim_check": {"tier": "cheap", "thinking_tokens": 0, "max_output_tokens": 3072,
                                            "max_iterations": 1},
    "session.project": None,  # design.md#projects: a session frozen before projects belongs to none
    "project.entrants": 3,
    "project.rejected_in_prompts": 20,
    "project.lock_timeout_seconds": 30.0,
    "ranking.researcher_weight": 4,  # design.md#researcher-ratings
    "reflection.result_relatives": 5,  # design.md#experimental-results
    "tools.skills_path": None,  # design.md#skills: no skills, as it ran
    "tools.skill_max_chars": 12000,
    "tools.passage_words": 200,  # design.md#own-documents
    "tools.fulltext_per_search": 0,  # design.md#full-text: it ran on abstracts only
    "tools.fulltext_passages": 3,
    "tools.fulltext_max_chars": 60000,
}
"""Keys added after sessions were frozen without them -> the value such a session gets when it resumes: the value
it ran with (for ``ranking.*``, what the schema supplied before the schema lost its defaults to ``conf/``, so
``ranking.batch`` stays off), else the default of ``conf/`` (``docs/design.md#claim-statuses``)."""


def old_key_message(key: str) -> str | None:
    """One line for an old key (``+run.max_ideas`` and ``run.max_ideas`` alike), or None."""
    key = key.lstrip("+~")
    if found := _renamed(key):
        old, new = found
        return f"{old}: renamed to {RENAMED[old]} (set {new}=... instead)"
    if key in REMOVED:
        return f"{key}: removed, {REMOVED[key]}"
    return None


def old_value_message(key: str, value: str) -> str | None:
    """One line for an old value of a key whose values were renamed (``ranking.pairing=seed``), or None."""
    key, value = key.lstrip("+~"), value.strip()
    new = RENAMED_VALUES.get(key, {}).get(value)
    return f"{key}={value}: renamed to {new} (set {key}={new} instead)" if new else None


def old_override(overrides: Sequence[str]) -> str | None:
    """The message for the first override that sets an old key or an old value, or None."""
    for override in overrides:
        key, _, value = override.partition("=")
        message = old_key_message(key) or old_value_message(key, value)
        if message:
            return message
    return None


def _node(data: Mapping[Any, Any], dotted: str) -> tuple[Any, str]:
    """The mapping holding the last part of ``dotted`` (None if a part is missing) and that last part."""
    *parents, leaf = dotted.split(".")
    node: Any = data
    for part in parents:
        node = node.get(part) if isinstance(node, Mapping) else None
    return (node if isinstance(node, Mapping) else None), leaf


def old_key_in(data: Mapping[Any, Any]) -> str | None:
    """The message for the first old key or old value present in a composed config (plain data), or None. A key
    given as null is absent (a dumped config writes a debate mode's unset ``max_iterations`` as null)."""
    for key in (*RENAMED, *REMOVED):
        node, leaf = _node(data, key)
        if node is not None and node.get(leaf) is not None:
            return old_key_message(key)
    for key, values in RENAMED_VALUES.items():
        node, leaf = _node(data, key)
        if node is not None and isinstance(node.get(leaf), str) and node[leaf] in values:
            return old_value_message(key, node[leaf])
    return None


def carry_over(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A frozen config snapshot with renamed keys moved to their new place, renamed values replaced and removed
    keys dropped (a copy; a snapshot already in today's names is returned equal)."""
    out = copy.deepcopy(snapshot)
    for old, new in RENAMED.items():
        node, leaf = _node(out, old)
        if node is not None and leaf in node:
            value = node.pop(leaf)  # type: ignore[attr-defined]
            *parents, new_leaf = new.split(".")
            target = out
            for part in parents:
                target = target.setdefault(part, {})
            target.setdefault(new_leaf, value)
    for key, values in RENAMED_VALUES.items():
        node, leaf = _node(out, key)
        if node is not None and isinstance(node.get(leaf), str) and node[leaf] in values:
            node[leaf] = values[node[leaf]]  # type: ignore[index]
    for old in REMOVED:  # a null is no value (as in old_key_in): kept, so today's snapshot is returned equal
        node, leaf = _node(out, old)
        if node is not None and node.get(leaf) is not None:
            node.pop(leaf)  # type: ignore[attr-defined]
    _add_defaults(out)
    return out


def _add_defaults(out: dict[str, Any]) -> None:
    """Give every key of :data:`ADDED` that ``out`` lacks its default (in place)."""
    for added, value in ADDED.items():
        *path, leaf = added.split(".")
        node: Any = out
        for part in path:
            node = node.setdefault(part, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.setdefault(leaf, copy.deepcopy(value))
