"""``cosci investigate draft --brief FILE [--from-session S --hypothesis H-…] [--out DIR] [overrides]``: the
command-line glue of the drafting (docs/design.md#draft).

Before any drafting call: the configuration, the brief (a file, or a session's hypothesis, or both: one line,
exit 2 when unreadable or without a requirement), the output folder (absent or empty), the sandbox, and the safety
screen of the brief as a goal is screened (refused: one line, exit 3, nothing written). Then the drafting
(:mod:`cosci.investigation.drafting`) runs through one gateway over ``draft.budget_usd``; its calls are logged in
``drafting/calls.jsonl``. Exit 0 when the last round passed every check, 1 when the rounds ran out.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from cosci.config.goal import GOAL_MAX_CHARS
from cosci.config.investigation import DRAFT_AGENTS, InvestigationConfig, load_investigation
from cosci.domain import Call
from cosci.errors import CosciError, GoalRefused
from cosci.investigation.draft_folder import DraftFolder
from cosci.investigation.draft_records import MAX_REQUIREMENTS, items, requirements
from cosci.investigation.drafting import Drafted, Drafter
from cosci.investigation.runtime import run_async
from cosci.session.folder import SessionFolder
from cosci.session.researcher import check_released
from cosci.store import SessionStore
from cosci.text import BOM, unreadable, unreadable_file

if TYPE_CHECKING:
    from cosci.config.schema import CosciConfig
    from cosci.safety.classifier import Screening
    from cosci.sandbox import Isolation


BRIEF_MAX_CHARS = GOAL_MAX_CHARS
"""The longest brief, in characters: a goal's (:data:`~cosci.config.goal.GOAL_MAX_CHARS`), since the brief is screened
like a goal and quoted into the drafter's calls like one (design.md#draft: a 1.6 MB brief kept the offline screen busy
for minutes with no output)."""


BRIEF_READ_BYTES = 1 << 20
"""The most of a brief file read (1 MiB): room for :data:`BRIEF_MAX_CHARS` characters of any script with whitespace
around them; a larger file, a device or an endless stream is refused before it fills memory."""


def brief_text(brief: Path | None, data_dir: Path, session: str | None, hypothesis: str | None) -> str:
    """The brief: the file's text, then the session hypothesis (quoted as the researcher's to test), if any.

    Raises:
        CosciError: no brief, a file that is not readable text (:func:`read_brief`), ``--hypothesis`` without
            ``--from-session`` (or the reverse), a hypothesis the session does not hold, or a brief longer than
            :data:`BRIEF_MAX_CHARS` (one line).
    """
    if (session is None) != (hypothesis is None):
        raise CosciError("--from-session and --hypothesis go together (the session and the hypothesis it holds)")
    if brief is None and hypothesis is None:
        raise CosciError("investigate draft needs --brief FILE, or --from-session S --hypothesis H-...")
    parts: list[str] = []
    if brief is not None:
        parts.append(read_brief(Path(brief)))
    if session is not None and hypothesis is not None:
        with SessionFolder.existing(data_dir, session).store(read_only=True) as store:
            found = store.hypotheses.get(hypothesis)
            # its text goes to no drafting model until it is released (design.md#safety)
            check_released(store, hypothesis, session, takes="no drafting", done="nothing was drafted")
        if found is None:
            raise CosciError(f"--hypothesis {hypothesis}: session {session} holds no such hypothesis")
        parts.append(f"Test this hypothesis ({hypothesis}):\n{found.title}. {found.statement}")
    text = "\n\n".join(p for p in parts if p)
    if len(text) > BRIEF_MAX_CHARS:
        raise CosciError(f"the brief is {len(text):,} characters long, over the limit of {BRIEF_MAX_CHARS:,} (a brief "
                         "is a research goal's length: its requirements in a list; data and code belong in the task)")
    return text


def read_brief(brief: Path) -> str:
    """The text of brief file ``brief``, surrounding whitespace dropped.

    Raises:
        CosciError: the file cannot be read, holds over :data:`BRIEF_READ_BYTES`, is not UTF-8, or holds a NUL
            byte or another control character than a line break or a tab (a binary file, or UTF-16 text, which
            decodes as UTF-8 with a NUL after each letter and would be drafted from as garbled text;
            design.md#draft). One line.
    """
    try:
        with brief.expanduser().open("rb") as fh:  # at most a cap's worth: /dev/zero or a 1 GB file read whole hung
            data = fh.read(BRIEF_READ_BYTES + 1)
        if len(data) > BRIEF_READ_BYTES:
            raise CosciError(f"--brief {brief}: holds over {BRIEF_READ_BYTES:,} bytes; a brief is at most "
                             f"{BRIEF_MAX_CHARS:,} characters (a research goal's length)")
        text = data.decode("utf-8").removeprefix(BOM).strip()
    except (OSError, UnicodeDecodeError) as exc:  # its byte, offset and line, or the system's words (no exception name)
        raise CosciError(unreadable_file(f"--brief {brief}", exc)) from None
    if "\x00" in text:
        raise CosciError(f"--brief {brief}: holds NUL bytes (a binary or UTF-16 file); save the brief as UTF-8 text")
    if why := unreadable(f"--brief {brief}", text):
        raise CosciError(why)
    return text


def out_folder(out: Path | None, data_dir: Path, name: str) -> Path:
    """``--out`` (absent or an empty folder), else ``<data>/drafts/<name>`` (``-2``, ``-3``... when taken).

    Raises:
        CosciError: ``--out`` names a file or a folder that is not empty (nothing is overwritten), or a folder that
            cannot be made (under a file, in a place that takes no new folder: ``/proc``, a read-only disk).
    """
    if out is not None:
        target = Path(out).expanduser().resolve()
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise CosciError(f"--out {out}: exists and is not an empty folder (a draft never overwrites)")
        _check_makeable(target, out)
        return target
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:40] or "task"
    target, k = data_dir / "drafts" / slug, 1
    while target.exists():
        k += 1
        target = data_dir / "drafts" / f"{slug}-{k}"
    return target


def _check_makeable(target: Path, given: Path) -> None:
    """Raises CosciError when folder ``target`` cannot be made: its nearest existing parent is not a folder, or a
    probe folder made in it (and removed at once) fails, so nothing is written and nothing is left behind."""
    parent = next(p for p in (target, *target.parents) if p.exists())
    if not parent.is_dir():
        raise CosciError(f"--out {given}: {parent} is a file, not a folder")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".cosci-probe-", dir=parent))
    except OSError as exc:
        raise CosciError(f"--out {given}: cannot make a folder in {parent} ({exc.strerror or type(exc).__name__})") \
            from None


def screen_brief(cfg: InvestigationConfig, text: str, session: str | None) -> None:
    """Screen the brief as a goal (``safety.block_goal_on`` acts). With ``--from-session`` the verdict is kept in
    that session's store (its audit trail); otherwise in a temporary store that is discarded.

    Raises:
        GoalRefused: the screen refused the brief (exit 3; nothing drafted, nothing written).
    """
    from cosci.safety.classifier import screening_on

    base = cfg.base
    if not screening_on(base):
        return
    if session is not None:
        with SessionFolder.existing(base.paths.data_dir, session).store() as store:
            screening = run_async(_screen(base, store, text))
    else:
        with tempfile.TemporaryDirectory(prefix="cosci-brief-") as tmp:
            store = SessionStore.open(Path(tmp) / "screen.sqlite", "draft-brief")
            store.sessions.create(goal=text, config_snapshot={}, overrides=[], models_choice=base.models.name,
                                  budget_usd=base.run.budget_usd, budget_tokens=None, wall_clock_seconds=0.0)
            try:
                screening = run_async(_screen(base, store, text))
            finally:
                store.close()
    if screening.acted:
        raise GoalRefused(f"the brief was refused by safety screening, {screening.verdict.line()}; nothing was "
                          "drafted")


async def _screen(base: CosciConfig, store: SessionStore, text: str) -> Screening:
    """One screening of ``text`` as a goal, booked on ``store`` (as ``cosci feedback`` screens its text)."""
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway
    from cosci.safety.classifier import Classifier

    budget = TokenBudget(cap_usd=base.run.budget_usd, shares={a: c.budget_share for a, c in base.agents.items()},
                         reserve_share=base.budget.reserve_share, cap_tokens=base.run.budget_tokens)
    gateway = Gateway(base, budget, store.logs.add_call)
    return await Classifier(base, gateway, gateway.router, store).screen("goal", text, action="ScreenBrief")


def _drafter(cfg: InvestigationConfig, folder: DraftFolder, text: str, iso: Isolation) -> Drafter:
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway

    assert cfg.draft is not None
    budget = TokenBudget(cap_usd=cfg.draft.budget_usd,
                         shares={a: c.budget_share for a, c in cfg.draft.agents.items()}, reserve_share=0.0)

    def record(c: Call) -> None:
        with (folder.log_dir / "calls.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"agent": c.agent, "action": c.action, "model": c.model, "outcome": c.outcome,
                                 "cost_usd": c.cost_usd, "input_tokens": c.input_tokens,
                                 "output_tokens": c.output_tokens, "error": c.error}) + "\n")

    gw = Gateway(cfg.draft_gateway_config(), budget, record)
    routes = {agent: gw.router.route(agent, mode) for agent, mode in DRAFT_AGENTS.items()}
    return Drafter(gw, routes, text, requirements(text), folder, iso, cfg.draft.max_run_seconds)


def draft(brief: Path | None, overrides: list[str], session: str | None, hypothesis: str | None,
          out: Path | None) -> int:
    """Run ``cosci investigate draft`` (see the module docstring); returns the exit status."""
    from cosci.sandbox import isolation

    cfg = load_investigation(overrides)
    if cfg.draft is None:
        raise CosciError("investigate draft: the configuration has no draft section (conf/investigation/)")
    check_can_draft(cfg)
    data_dir = cfg.base.paths.data_dir
    text = brief_text(brief, data_dir, session, hypothesis)
    reqs = requirements(text)
    if not reqs:
        raise CosciError("the brief states no requirement (a sentence or a list item)")
    target = out_folder(out, data_dir, Path(brief).stem if brief else str(hypothesis))
    iso = isolation(cfg.investigation.unsafe_no_sandbox, cfg.investigation.sandbox)
    screen_brief(cfg, text, session)
    folder = DraftFolder(target)
    folder.start(text, {"brief": str(brief) if brief else None, "from_session": session, "hypothesis": hypothesis,
                        "overrides": overrides, "requirements": [r.model_dump() for r in reqs],
                        "max_rounds": cfg.draft.max_rounds, "isolation": iso.tool})
    try:
        drafted = run_async(_drafter(cfg, folder, text, iso).run(cfg.draft.max_rounds))
    except CosciError as exc:  # a budget cap, a permanent model error: recorded, then one line (exit 2)
        folder.write_json("status.json", {"passed": False, "error": str(exc)})
        raise CosciError(f"investigate draft stopped: {exc} (draft.budget_usd {cfg.draft.budget_usd:g}; log: "
                         f"{folder.log_dir})") from None
    folder.write_json("status.json", {"passed": drafted.passed, "rounds": [r.to_dict() for r in drafted.rounds]})
    for line in summary(drafted, target, len(items(text))):
        print(line, flush=True)
    return 0 if drafted.passed else 1


DRAFT_MIN_STRING_CHARS = 2_000
"""A drafted file (program, evaluator, data generator) is one string of the ``record_task_draft`` record; a model whose
strings are bounded below this many characters cannot write one (design.md#draft)."""


def check_can_draft(cfg: InvestigationConfig) -> None:
    """Refuse, before anything is read, screened or written, a configuration whose drafting agent writes on a
    schema-constrained embedded model whose strings are capped below :data:`DRAFT_MIN_STRING_CHARS` (the default
    ``models=local``: 100 characters a string, ``local.max_string_chars``). Raises :class:`CosciError`."""
    from cosci.llm.gateway.routing import CONSTRAINED_PROVIDERS

    assert cfg.draft is not None
    models = cfg.base.models
    cap = models.local.max_string_chars if models.local is not None else None
    for mode in cfg.draft.agents["drafting"].modes.values():
        model = models.tiers[mode.tier].model
        if model.startswith(CONSTRAINED_PROVIDERS) and cap is not None and cap < DRAFT_MIN_STRING_CHARS:
            raise CosciError(f"investigate draft: the drafting agent's model {model} writes at most {cap} characters "
                             f"a string (local.max_string_chars), too few for a program; choose a hosted preset "
                             f"(e.g. models=opus) for drafting (design.md#draft)")


def summary(drafted: Drafted, target: Path, n_requirements: int) -> list[str]:
    """The lines printed on stdout."""
    last = drafted.rounds[-1]
    cut = f" (the first {MAX_REQUIREMENTS} were judged)" if n_requirements > MAX_REQUIREMENTS else ""
    lines = [f"draft        {target}  ({drafted.design.title})",
             f"rounds       {len(drafted.rounds)}: " + ", ".join(f"{r.number} {r.stage}" for r in drafted.rounds),
             f"requirements {n_requirements}{cut}"]
    if drafted.passed:
        lines += ["status       passes the check and the alignment judge",
                  f"next         cosci investigate run {target}"]
    else:
        lines += [f"status       not drafted: round {last.number} failed at {last.stage}"]
        lines += [f"failure      {f}" for f in last.failures]
        lines += [f"log          {target / 'drafting'}"]
    return lines
