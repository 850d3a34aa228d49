"""Typed settings of ``cosci investigate`` (the ``conf/investigation/`` group; docs/design.md#investigation).

``cosci investigate`` composes the primary config plus the ``investigation`` group (``+investigation=default``,
a ``_global_`` package adding the ``investigation`` and ``evidence`` sections), takes those two sections out and
validates them here, and validates the rest as a session's :class:`~cosci.config.schema.CosciConfig` (models,
retries, tracking, paths): sessions never see these keys. Defaults and their reasons: ``conf/investigation/``.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from cosci.config.schema import AgentCfg, CosciConfig
from cosci.plugins import sandboxes

INVESTIGATION_AGENTS = ("ideation", "execution", "writer")
"""The agents of an investigation: ideation (the idea bundle), execution (the candidates), writer (the report)."""
DRAFT_AGENTS = {"design": "design", "review": "review", "drafting": "draft", "alignment": "judge"}
"""The agents of ``cosci investigate draft`` and their one mode (docs/design.md#draft): the design agent, the
independent reviewer, the drafting agent (which also repairs) and the alignment judge."""
EVIDENCE_AGENTS = {"proposer": "propose", "filter": "screen"}
"""The agents of the designed evidence and their one mode (docs/design.md#evidence): the proposer of baselines and
ablations from the code diff, and the filter that screens them."""
PAPER_AGENTS = {"author": "write", "auditor": "audit", "reviewer": "review", "chair": "chair"}
"""The agents of ``cosci investigate write`` and their one mode (docs/design.md#paper): the author (who also
repairs), the auditor (blind to the checks), the reviewers (one agent, ``paper.reviewers`` calls) and the area
chair."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class InvestigationCfg(_Strict):
    workers: int = Field(ge=1, le=64, description="Parallel workers, each with its own folder and best program.")
    cycles: int = Field(ge=1, le=1_000, description="Research cycles per worker.")
    budget_usd: float = Field(gt=0, le=100_000, description="Cap on the whole investigation's model calls, USD.")
    reserve_share: float = Field(ge=0, le=1, description="Share of budget_usd kept for the report writer's call "
                                 "on top of its own share (absorbs its overage).")
    task_runner: Literal["thread", "ray"] = Field(description="Where cycles run: threads of this process, or a Ray "
                                                  "cluster through prefect-ray.")
    ray_address: str | None = Field(description="Ray cluster address for task_runner=ray; null = a local instance.")
    unsafe_no_sandbox: bool = Field(description="Run programs without isolation when bubblewrap is unavailable "
                                    "(printed and recorded).")
    sandbox: str = Field(default="bwrap", description="The sandbox backend programs run in: bwrap, or one a "
                         "package declares (entry-point group cosci.sandboxes; docs/plugins.md).")
    history_cycles: int = Field(ge=0, le=1_000, description="The worker's most recent cycles shown to ideation.")
    from_session_top: int = Field(ge=1, le=100, description="Top hypotheses (the session's current standing: BT, "
                                  "then Elo; docs/design.md#report) seeded from --from-session.")
    agents: dict[str, AgentCfg] = Field(description="ideation, execution and writer: share, modes (tier, tokens).")

    @field_validator("sandbox")
    @classmethod
    def _declared(cls, name: str) -> str:
        known = sandboxes()  # declarations (data): no backend code is imported to validate
        if name not in known:
            raise ValueError(f"unknown sandbox backend '{name}' (declared: {', '.join(known)})")
        return name

    @model_validator(mode="after")
    def _agents(self) -> InvestigationCfg:
        missing = [a for a in INVESTIGATION_AGENTS if a not in self.agents]
        unknown = sorted(set(self.agents) - set(INVESTIGATION_AGENTS))
        if missing or unknown:
            raise ValueError(f"investigation.agents: needs exactly {', '.join(INVESTIGATION_AGENTS)}"
                             f" ({'missing ' + ', '.join(missing) if missing else 'unknown ' + ', '.join(unknown)})")
        total = sum(a.budget_share for a in self.agents.values()) + self.reserve_share
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ValueError(f"investigation.agents.*.budget_share + investigation.reserve_share must sum to 1 "
                             f"(got {total:.3f})")
        return self


class DraftCfg(_Strict):
    """``cosci investigate draft`` (docs/design.md#draft)."""

    max_rounds: int = Field(ge=1, le=20, description="Drafting rounds (draft, check, alignment judge); a failed "
                            "round goes back to repair with its failing items.")
    budget_usd: float = Field(gt=0, le=100_000, description="Cap on the drafting's model calls, USD.")
    max_run_seconds: float = Field(gt=0, le=86_400, description="Longest wall clock or CPU time a drafted task may "
                                   "give one run (task.yaml timeouts and limits.cpu_seconds), seconds: the check "
                                   "runs the drafted programs, so a longer one is refused before it runs.")
    agents: dict[str, AgentCfg] = Field(description="design, review, drafting, alignment: share, modes (tier, "
                                        "tokens).")

    @model_validator(mode="after")
    def _agents(self) -> DraftCfg:
        if set(self.agents) != set(DRAFT_AGENTS):
            raise ValueError(f"draft.agents: needs exactly {', '.join(DRAFT_AGENTS)}")
        for agent, mode in DRAFT_AGENTS.items():
            if mode not in self.agents[agent].modes:
                raise ValueError(f"draft.agents.{agent}.modes: needs the mode {mode}")
        total = sum(a.budget_share for a in self.agents.values())
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ValueError(f"draft.agents.*.budget_share must sum to 1 (got {total:.3f})")
        return self


class PaperCfg(_Strict):
    """``cosci investigate write`` (docs/design.md#paper)."""

    max_rounds: int = Field(ge=1, le=20, description="Check rounds: a round whose checks fail goes to the auditor "
                            "and then back to the author with its failing items; the last round's checks stand.")
    budget_usd: float = Field(gt=0, le=100_000, description="Cap on the writing's model calls, USD.")
    max_words: int = Field(ge=100, le=50_000, description="Longest paper, words of title, abstract and sections (the "
                           "page limit, counted without a TeX engine).")
    max_pages: int = Field(default=8, ge=1, le=100, description="Longest body of the compiled PDF, pages before "
                           "the appendix (evidence rows) and references; checked when a TeX engine built the PDF "
                           "(docs/design.md#paper).")
    reviewers: int = Field(ge=1, le=10, description="Reviewer calls (independent: none sees another's review; "
                           "at least one: an area chair over no review decides on nothing).")
    after_run: bool = Field(description="cosci investigate run writes the paper when its run is done (as cosci "
                            "investigate write would).")
    agents: dict[str, AgentCfg] = Field(description="author, auditor, reviewer, chair: share, modes (tier, tokens).")

    @model_validator(mode="after")
    def _agents(self) -> PaperCfg:
        if set(self.agents) != set(PAPER_AGENTS):
            raise ValueError(f"paper.agents: needs exactly {', '.join(PAPER_AGENTS)}")
        for agent, mode in PAPER_AGENTS.items():
            if mode not in self.agents[agent].modes:
                raise ValueError(f"paper.agents.{agent}.modes: needs the mode {mode}")
        total = sum(a.budget_share for a in self.agents.values())
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ValueError(f"paper.agents.*.budget_share must sum to 1 (got {total:.3f})")
        return self


class EvidenceCfg(_Strict):
    seeds: int = Field(ge=1, le=1_000, description="Seeds each evidence program runs with the final evaluator.")
    confidence: float = Field(gt=0, lt=1, description="Level of the intervals on means and gains (0.95: 95 %).")
    equivalence_margin: float = Field(ge=0, lt=1, description="Practical-equivalence margin of a gain, as a fraction "
                                      "of the baseline's mean score (the program without the idea, same seeds): "
                                      "'refuted' needs a gain interval with mean <= 0 and upper bound under it "
                                      "(docs/design.md#evidence).")
    designed: int = Field(default=0, ge=0, le=8, description="Designed baselines and ablations run over the evidence "
                          "seeds at most (proposed from the code diff, screened by the filter, checked by script); "
                          "0: none (runs frozen before it existed).")
    budget_usd: float = Field(default=0.5, gt=0, le=100_000, description="Cap on the proposer's and the filter's "
                              "calls, USD.")
    agents: dict[str, AgentCfg] | None = Field(default=None, description="proposer and filter: share, modes (tier, "
                                               "tokens); needed when designed > 0.")

    @model_validator(mode="after")
    def _agents(self) -> EvidenceCfg:
        if self.designed == 0:
            return self
        if self.agents is None or set(self.agents) != set(EVIDENCE_AGENTS):
            raise ValueError(f"evidence.agents: needs exactly {', '.join(EVIDENCE_AGENTS)} when evidence.designed > 0")
        for agent, mode in EVIDENCE_AGENTS.items():
            if mode not in self.agents[agent].modes:
                raise ValueError(f"evidence.agents.{agent}.modes: needs the mode {mode}")
        if not math.isclose(sum(a.budget_share for a in self.agents.values()), 1.0, abs_tol=1e-6):
            raise ValueError("evidence.agents.*.budget_share must sum to 1")
        return self


class InvestigationConfig(_Strict):
    """Everything one investigation runs with: the session-level settings it shares (``base``: models, retry,
    tracking, paths) and its own two sections."""

    base: CosciConfig
    investigation: InvestigationCfg
    evidence: EvidenceCfg
    draft: DraftCfg | None = Field(default=None, description="cosci investigate draft (runs frozen before it "
                                   "existed have none).")
    paper: PaperCfg | None = Field(default=None, description="cosci investigate write (runs frozen before it "
                                   "existed have none).")

    @model_validator(mode="after")
    def _tiers(self) -> InvestigationConfig:
        tiers = self.base.models.tiers
        drafting = self.draft.agents.items() if self.draft else []
        writing = self.paper.agents.items() if self.paper else []
        designing = self.evidence.agents.items() if self.evidence.agents else []
        for agent, acfg in [*self.investigation.agents.items(), *drafting, *writing, *designing]:
            for mode, mcfg in acfg.modes.items():
                tier = self.base.models.agent_tiers.get(f"{agent}.{mode}") or self.base.models.agent_tiers.get(
                    agent) or mcfg.tier
                if tier not in tiers:
                    where = ("draft" if agent in DRAFT_AGENTS else "paper" if agent in PAPER_AGENTS
                             else "evidence" if agent in EVIDENCE_AGENTS else "investigation")
                    raise ValueError(f"{where}.agents.{agent}.modes.{mode}.tier: tier '{tier}' is not in "
                                     f"models '{self.base.models.name}' ({', '.join(tiers)})")
        return self

    def gateway_config(self) -> CosciConfig:
        """The session config with the investigation's agents added, so the gateway's router can route them
        (``model_copy``: the session's own cross-field rules are about its seven agents, not these)."""
        return self.base.model_copy(update={"agents": {**self.base.agents, **self.investigation.agents}})

    def draft_gateway_config(self) -> CosciConfig:
        """The session config with the drafting agents added (see :meth:`gateway_config`)."""
        assert self.draft is not None
        return self.base.model_copy(update={"agents": {**self.base.agents, **self.draft.agents}})

    def evidence_gateway_config(self) -> CosciConfig:
        """The session config with the designed evidence's agents added (see :meth:`gateway_config`)."""
        return self.base.model_copy(update={"agents": {**self.base.agents, **(self.evidence.agents or {})}})

    def paper_gateway_config(self) -> CosciConfig:
        """The session config with the writing agents added (see :meth:`gateway_config`)."""
        assert self.paper is not None
        return self.base.model_copy(update={"agents": {**self.base.agents, **self.paper.agents}})


def group_overrides(overrides: list[str]) -> list[str]:
    """``overrides`` with the investigation group selected: ``investigation=X`` becomes ``+investigation=X`` (the
    group is not in the primary defaults), else ``+investigation=default`` comes first."""
    out, chosen = [], False
    for o in overrides:
        if o.startswith(("investigation=", "+investigation=")):
            out.append("+" + o.lstrip("+"))
            chosen = True
        else:
            out.append(o)
    return out if chosen else ["+investigation=default", *out]


def load_investigation(overrides: list[str]) -> InvestigationConfig:
    """Compose and validate an investigation's configuration (see the module docstring).

    Raises:
        ConfigError: one line naming the key and the rule.
    """
    from omegaconf import OmegaConf
    from pydantic import ValidationError

    from cosci.config.load import ConfigError, compose, validate

    composed = compose(group_overrides(list(overrides)))
    raw = OmegaConf.to_container(composed, resolve=True)
    assert isinstance(raw, dict)
    data = {str(k): v for k, v in raw.items()}
    inv, evidence, draft = data.pop("investigation", None), data.pop("evidence", None), data.pop("draft", None)
    paper = data.pop("paper", None)
    base = validate(data)
    try:
        return InvestigationConfig.model_validate({"base": base, "investigation": inv, "evidence": evidence,
                                                   "draft": draft, "paper": paper})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{loc}: {msg}" if loc else msg) from None
