"""The tools' and tracking's sections (conf/tools/, conf/tracking/; design.md#tools, #tracking)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator, model_validator

from cosci.config.schema.base import (
    MAX_COUNT,
    _Strict,
    folder_name,
)


class ApisCfg(_Strict):
    """Settings of the scholarly APIs behind the literature tools (design.md#tools, design.md#retractions).

    The defaults equal ``conf/config.yaml``'s and serve only a session frozen before these keys existed (its
    snapshot lacks them: it resumes, reports and exports with the shipped values)."""

    crossref_mailto: str | None = Field(
        default=None, description="E-mail sent to Crossref as `mailto`, which puts requests in its polite pool; "
        "null sends none (the public pool).")
    openalex_max_calls: int = Field(
        default=200, ge=0, le=100_000, description="OpenAlex requests a session may send, requests "
        "(design.md#tools: a free key buys about 1,000 a day; 200 leaves room for several sessions a day).")
    retraction_check: bool = Field(
        default=True, description="Check every cited record once per session against Crossref update notices and "
        "Europe PMC publication types (design.md#retractions); false: only the flags the search results carry.")


class McpServerCfg(_Strict):
    """One MCP tool server whose tools are sources (design.md#mcp-servers): a ``command`` started over stdio or a
    streamable HTTP ``url``, and the tools it may offer (``allow``: names or shell patterns, ``fnmatch``)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,23}$", description="Short name: tools are offered as "
                      "mcp_<name>_<tool> and warnings name it.")
    command: list[str] | None = Field(default=None, min_length=1, description="The server's command and its "
                                      "arguments, started over stdio (no shell).")
    url: str | None = Field(default=None, pattern=r"^https?://\S+$", description="The server's streamable HTTP "
                            "endpoint.")
    allow: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1, description="Tool names or patterns "
                                                               "('search_*') the agents may load; others are never "
                                                               "offered.")

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerCfg:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"tools.mcp_servers '{self.name}': give exactly one of command (stdio) or url (HTTP)")
        return self


class ToolsCfg(_Strict):
    timeout_seconds: float = Field(gt=0, le=3_600, description="Per-tool timeout, seconds (design.md#tools: 30 s).")
    parallel_cap: int = Field(gt=0, le=64, description="Tool calls dispatched at once per turn (design.md#tools: 4).")
    max_results: int = Field(gt=0, le=1_000, description="Records returned per literature search.")
    fetch_max_bytes: int = Field(gt=0, le=1_000_000_000, description="web_fetch download cap, bytes.")
    fetch_max_chars: int = Field(gt=0, le=10_000_000, description="web_fetch text returned to the model, characters.")
    offline: bool = Field(description="Network tools answer 'unavailable' without making a request.")
    apis: ApisCfg = Field(default_factory=ApisCfg, description="The scholarly APIs' settings (design.md#tools); "
                          "a session frozen before them gets the shipped values.")
    skills_path: str | None = Field(description="Folder scanned at session start for SKILL.md documents, each a "
                                    "literature_<name> tool (design.md#skills); null: no skills.")
    skill_max_chars: int = Field(gt=0, le=1_000_000, description="A skill document returned to the model, "
                                 "characters (design.md#skills: 12000).")
    passage_words: int = Field(gt=20, le=2_000, description="Longest passage of a document in "
                               "session.corpus_path or of an open-access full text, words "
                               "(design.md#own-documents: 200).")
    fulltext_per_search: int = Field(ge=0, le=20, description="Hits of one Europe PMC search whose open-access "
                                     "full text is read (design.md#full-text: 2; 0: abstracts only).")
    fulltext_passages: int = Field(ge=1, le=20, description="Passages of a full text shown per hit, those best "
                                   "matching the query (design.md#full-text: 3).")
    fulltext_max_chars: int = Field(gt=0, le=2_000_000, description="Characters of a full text kept for "
                                    "excerpt verification and the observation review (design.md#full-text).")
    # defaults: what a session frozen before MCP servers existed resumes with (conf/tools/default.yaml sets them)
    mcp_servers: list[McpServerCfg] = Field(default_factory=list, max_length=50, description="MCP tool servers "
                                            "whose allowed tools the agents find through mcp_tool_search "
                                            "(design.md#mcp-servers); []: none.")
    mcp_timeout_seconds: float = Field(default=20.0, gt=0, le=600, description="Starting and listing an MCP "
                                       "server, and one call of its tool, seconds (design.md#mcp-servers: 20).")
    mcp_max_chars: int = Field(default=100_000, gt=0, le=10_000_000, description="The longest answer of an MCP "
                               "tool read, characters; a longer one is refused in one warning "
                               "(design.md#mcp-servers).")

    @field_validator("mcp_servers")
    @classmethod
    def _unique_servers(cls, servers: list[McpServerCfg]) -> list[McpServerCfg]:
        names = [s.name for s in servers]
        if twice := sorted({n for n in names if names.count(n) > 1}):
            raise ValueError(f"tools.mcp_servers: the name {twice[0]!r} is given twice")
        return servers


class TrackingCfg(_Strict):
    enabled: bool = Field(description="Log each session as an MLflow run.")
    tracking_uri: str | None = Field(description="MLflow tracking URI; null = sqlite under paths.data_dir.")
    experiment_name: str = Field(min_length=1, description="MLflow experiment (defaults to session.name).")
    log_every_tasks: int = Field(gt=0, le=MAX_COUNT, description="Step metrics are logged every N completed tasks.")
    traces: bool = Field(default=True, description="Log every LLM call as an MLflow trace span, one trace per task "
                         "(design.md#tracking); false = none.")

    @field_validator("experiment_name", mode="before")
    @classmethod
    def _experiment_name(cls, value: object) -> object:
        """A folder under ``mlartifacts/`` as ``session.name`` is (:func:`folder_name`)."""
        return folder_name(value, "an experiment name", "tracking.experiment_name=aml-2026")
