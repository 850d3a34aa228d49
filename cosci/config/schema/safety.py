"""The safety screen's section (conf/safety/; design.md#safety-screen)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from cosci.config.schema.base import (
    SafetyDecision,
    Unit,
    _Strict,
)


class ScreenCfg(_Strict):
    """The offline screen's thresholds: harm scores (the learned model's probability, 0-1) at which a window acts
    (docs/design.md#safety-screen; chosen by ``python -m bench.safety --split tune``, figures in bench/README.md)."""

    hit_score: Unit = Field(description="A term pre-screen hit acts from this harm score.")
    protected_hit_score: Unit = Field(description="A term hit in a text that states a protective purpose "
                                      "(treatment, detection, vaccine, training...) acts from this harm score.")
    agent_score: Unit = Field(description="An agent named without a term hit acts from this harm score.")
    # default: what a session frozen before this threshold existed resumes with (conf/config.yaml sets it)
    protected_agent_score: Unit | None = Field(default=None, description="An agent named without a term hit in a "
                                               "text that states a protective purpose acts from this harm score "
                                               "(null: agent_score).")
    alone_score: Unit = Field(description="A text naming no agent acts from this harm score (1.0: never).")
    # default {}: what a session frozen before this threshold existed resumes with (conf/safety/default.yaml sets it)
    unprotected_hit_scores: dict[str, Unit] = Field(default_factory=dict, description="Per hazard category, a "
                                                    "lower harm score from which a term hit of that category acts "
                                                    "in a text stating no protective purpose (a category absent: "
                                                    "hit_score).")
    # default {}: what a session frozen before this threshold existed resumes with (conf/safety/default.yaml sets it)
    unprotected_agent_scores: dict[str, Unit] = Field(default_factory=dict, description="Per hazard category, a "
                                                      "lower harm score from which a named agent of that category "
                                                      "acts without a term hit in a text stating no protective "
                                                      "purpose (a category absent: agent_score).")
    # default null: what a session frozen before this rule existed resumes with (conf/safety/default.yaml sets it)
    asked_hit_score: Unit | None = Field(default=None, description="A term hit acts from this harm score in a text "
                                         "that asks for its harmful step outright (an imperative harmful verb "
                                         "opening it) and states no protective purpose (null: the hit's usual "
                                         "threshold).")
    # default 0: what a session frozen before the support check existed resumes with (conf/config.yaml sets it)
    alone_support: Unit = Field(default=0.0, description="A text naming no agent acts only where the share of "
                                "harmful requests among its 10 nearest training rows reaches this (0-1; 0: the "
                                "harm score alone).")
    # default null: what a session frozen before the second bar existed resumes with (conf/safety/default.yaml sets it)
    alone_strong_score: Unit | None = Field(default=None, description="A text naming no agent also acts from this "
                                            "harm score where its support reaches alone_strong_support, under "
                                            "alone_support (null: no second bar).")
    alone_strong_support: Unit = Field(default=0.0, description="The support the second bar of a text naming no "
                                       "agent needs (with alone_strong_score).")


class SafetyCfg(_Strict):
    """Safety screening: the classifier's decisions, the offline screen, and which decisions act."""

    enabled: bool = Field(description="Screen the goal, feedback, new hypotheses and the overview (false: no call).")
    block_goal_on: list[SafetyDecision] = Field(description="Decisions that refuse a goal or feedback text.")
    quarantine_on: list[SafetyDecision] = Field(description="Decisions that quarantine a new hypothesis.")
    withhold_overview_on: list[SafetyDecision] = Field(description="Decisions that withhold the final overview.")
    categories: list[str] = Field(min_length=1, description="The fixed hazard categories the classifier names.")
    prescreen_terms: str = Field(
        min_length=1, description="Pre-screen term file, relative to conf/ (or absolute): a coarse first pass."
    )
    # defaults: what a session frozen before the offline screen existed resumes with (conf/config.yaml sets them)
    refuse_categories: list[str] = Field(
        default=["biological", "chemical", "radiological_nuclear"],
        description="Categories where a screen hit is `block` (refuses a goal before any generation); a hit in "
        "another category is `flag` (warns and tags the run)."
    )
    intent: str = Field(default="safety_intent.npz", min_length=1, description="The fitted intent model (numpy "
                        ".npz, relative to conf/ or absolute) the offline screen scores requests with: fitted on the "
                        "labelled set's tuning part by python -m bench.safety --fit-intent "
                        "(docs/design.md#safety-screen).")
    model_answer_on: list[Literal["goal", "hypothesis", "overview", "feedback"]] = Field(
        default=["goal", "hypothesis", "overview", "feedback"],
        description="Texts a tier unable to classify is still asked about, its answer only recorded for "
        "measurement (the offline screen decides on every text either way; the demo asks on the goal only, "
        "design.md#demo).")
    screen: ScreenCfg = Field(default_factory=lambda: ScreenCfg(hit_score=0.6, protected_hit_score=0.6,
                                                                agent_score=0.6, alone_score=0.6),
                              description="Thresholds of the offline screen.")

    @model_validator(mode="after")
    def _refuse_in_categories(self) -> SafetyCfg:
        named = [*self.refuse_categories, *self.screen.unprotected_hit_scores, *self.screen.unprotected_agent_scores]
        unknown = [c for c in named if c not in self.categories]
        if unknown:
            raise ValueError(f"safety.refuse_categories / safety.screen.unprotected_*_scores: '{unknown[0]}' is not "
                             "in safety.categories")
        return self
