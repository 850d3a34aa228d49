"""`cosci report <id> --html` on a finished and on a running session, and `cosci export` (issue 17)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cosci.config.schema import CosciConfig
from cosci.domain import BT_INTERVAL_LABEL
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.stats import SessionStats
from cosci.supervisor.loop import Supervisor
from tests.conftest import FinishedCopy
from tests.report.conftest import HOSTILE_TITLE, Session
from tests.test_cli import _cli


def test_report_html_of_a_finished_session(session: Session, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(capsys, "--data-dir", str(session.data), "report", session.sid, "--html")
    assert code == 0 and Path(out.strip()) == session.report
    assert session.sid in session.report.read_text(encoding="utf-8")
    other = tmp_path / "elsewhere.html"
    code, out, _ = _cli(capsys, "--data-dir", str(session.data), "report", session.sid, "--html", "--out", str(other))
    assert code == 0 and Path(out.strip()) == other and "<!DOCTYPE html>" in other.read_text(encoding="utf-8")


def test_report_out_follows_the_file_name(session: Session, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--data-dir", str(session.data), "report", session.sid)
    code, printed, _ = _cli(capsys, *args)
    md = tmp_path / "x.md"
    code, out, _ = _cli(capsys, *args, "--out", str(md))
    assert code == 0 and Path(out.strip()) == md and md.read_text(encoding="utf-8") == printed  # what it prints
    assert "<!DOCTYPE html>" not in printed
    page = tmp_path / "x.htm"
    code, out, _ = _cli(capsys, *args, "--out", str(page))  # the name asks for the page
    assert code == 0 and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    for extra in (["--html"], ["--open"]):
        code, out, err = _cli(capsys, *args, *extra, "--out", str(tmp_path / "y.md"))
        assert code == 2 and err.count("\n") == 1 and "name the file .html" in err and not (tmp_path / "y.md").exists()
    code, _, err = _cli(capsys, *args, "--out", "/nonexistent-folder/x.md")
    assert code == 2 and "does not exist" in err


class _ReportWhileRunning:
    """An observer that runs `cosci report --html` while the session is running (lock held, status running)."""

    def __init__(self, data: Path, sid: str, capsys: pytest.CaptureFixture[str]) -> None:
        self.data, self.sid, self.capsys = data, sid, capsys
        self.result: tuple[int, str, str] | None = None
        self.page = ""

    def on_progress(self, stats: SessionStats, step: int) -> None:
        if self.result is None and stats.matches > 0:
            self.result = _cli(self.capsys, "--data-dir", str(self.data), "report", self.sid, "--html")
            self.page = Path(self.result[1].strip()).read_text(encoding="utf-8") if self.result[0] == 0 else ""


def test_report_html_of_a_running_session(config: CosciConfig, fake: FakeBackend,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    async def run() -> _ReportWhileRunning:
        rt = await SessionRuntime.open(config, models_choice="fake")
        probe = _ReportWhileRunning(config.paths.data_dir, rt.session_id, capsys)
        sup = Supervisor(config, rt.store, rt.budget, rt.execute, [probe])
        rt.write_overview(await sup.finalize(await sup.run()))
        await rt.close()
        return probe

    probe = asyncio.run(run())
    assert probe.result is not None
    code, _, err = probe.result
    assert code == 0, err
    assert "running" in probe.page and "report of a session in progress" in probe.page
    assert "No overview yet" in probe.page and 'id="leaderboard-table"' in probe.page
    assert "<tr data-id=" in probe.page  # hypotheses already ranked while it runs


def test_export_formats(session: Session, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--data-dir", str(session.data), "export", session.sid)
    code, md, _ = _cli(capsys, *args, "--format", "md")
    assert code == 0 and "## Leaderboard" in md and "# Executive summary" in md
    assert f"| {session.hostile} | {HOSTILE_TITLE} |" in md
    out = tmp_path / "record.jsonl"
    code, printed, _ = _cli(capsys, *args, "--format", "jsonl", "--out", str(out))
    assert code == 0 and Path(printed.strip()) == out
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    kinds = [line["type"] for line in lines]
    store = session.store()
    assert kinds[0] == "session" and kinds.count("session") == 1
    assert kinds.count("hypothesis") == len(store.hypotheses.all())
    assert kinds.count("review") == len(store.hypotheses.reviews())
    assert kinds.count("match") == store.matches.count()
    store.close()
    debate = next(line for line in lines if line["type"] == "match" and line["id"] == "M-hostile")
    assert debate["transcript"][0]["speaker"] == "expert 1"
    code, html, _ = _cli(capsys, *args, "--format", "html")
    assert code == 0 and html.startswith("<!DOCTYPE html>") and session.sid in html


@pytest.mark.parametrize(("extra", "message"), [
    (["--format", "pdf"], "invalid choice"),
    (["--format", "md", "--out", "/nonexistent-folder/x.md"], "does not exist"),
])
def test_export_errors_are_one_line(session: Session, capsys: pytest.CaptureFixture[str], extra: list[str],
                                    message: str) -> None:
    code, _, err = _cli(capsys, "--data-dir", str(session.data), "export", session.sid, *extra)
    assert code == 2 and message in err


@pytest.mark.parametrize("fmt", ["md", "html", "jsonl"])
def test_export_into_a_folder_is_one_line_as_report_says_it(session: Session, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    """`--out DIR` is refused in one line, exit 2, the words `cosci report --out DIR` says (no traceback)."""
    args = ("--data-dir", str(session.data))
    code, _, said = _cli(capsys, *args, "report", session.sid, "--out", str(tmp_path))
    assert code == 2 and said == f"cosci: --out {tmp_path}: cannot write it (Is a directory); nothing was written\n"
    code, out, err = _cli(capsys, *args, "export", session.sid, "--format", fmt, "--out", str(tmp_path))
    assert (code, out, err) == (2, "", said)


@pytest.mark.parametrize(("fmt", "name", "words"), [
    ("html", "x.md", "--format html writes HTML, name the file .html (or --format md to write Markdown there)"),
    ("html", "x.txt", "--format html writes HTML, name the file .html"),
    ("md", "x.html", "--format md writes Markdown, name the file .md (or --format html to write HTML there)"),
    ("md", "x.htm", "--format md writes Markdown, name the file .md (or --format html to write HTML there)"),
    ("jsonl", "x.md", "--format jsonl writes JSON Lines, name the file .jsonl (or --format md to write Markdown"),
])
def test_export_refuses_a_file_name_of_another_format(session: Session, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str], fmt: str, name: str,
                                                      words: str) -> None:
    """As `cosci report --html --out x.txt` is refused: one line, exit 2, nothing written."""
    target = tmp_path / name
    code, _, err = _cli(capsys, "--data-dir", str(session.data), "export", session.sid, "--format", fmt,
                        "--out", str(target))
    assert code == 2 and err.count("\n") == 1 and words in err and not target.exists()


@pytest.mark.parametrize(("fmt", "name"), [("md", "x.md"), ("md", "x.txt"), ("md", "x"), ("html", "x.HTM"),
                                           ("jsonl", "x.jsonl"), ("jsonl", "x.json")])
def test_export_writes_a_file_name_that_fits(session: Session, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             fmt: str, name: str) -> None:
    target = tmp_path / name
    code, out, err = _cli(capsys, "--data-dir", str(session.data), "export", session.sid, "--format", fmt,
                          "--out", str(target))
    assert code == 0 and Path(out.strip()) == target and target.stat().st_size > 0, err


def test_unknown_session_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), "report", "s-nope", "--html")
    assert code == 2 and err.count("\n") == 1 and "no session 's-nope'" in err


@pytest.mark.parametrize("opened", [True, False])
def test_report_open(session: Session, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                     opened: bool) -> None:
    import webbrowser

    urls: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: urls.append(url) or opened)
    code, out, err = _cli(capsys, "--data-dir", str(session.data), "report", session.sid, "--open")
    assert code == 0 and urls == [session.report.as_uri()] and Path(out.strip()) == session.report
    assert ("no browser could be started" in err) is not opened


def test_export_md_shows_the_bt_standing_it_is_ordered_by_and_the_researcher_section(
        finished_copy: FinishedCopy, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The Markdown leaderboard is in the BT order and says each BT score and interval beside Elo (as `cosci
    report`'s "Current leaderboard" does), and lists the researcher's rating under the heading the report uses."""
    from cosci.agents.researcher_context import researcher_lines
    from cosci.report.standing import standing
    from cosci.store import STORE_FILE, SessionStore

    data = tmp_path / "data"
    sid = finished_copy(data)
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    first, second = [e.id for e in standing(store).fitted(2)]
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, second, first, "--prefer", "a",
                        "--why", "the second explains the control experiment better")
    assert code == 0, err
    code, md, err = _cli(capsys, "--data-dir", str(data), "export", sid, "--format", "md")
    assert code == 0, err
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    ranked, said = standing(store).ranked, researcher_lines(store)
    store.close()
    board = md[md.index("## Leaderboard"):]
    header, *rows = [line for line in board.splitlines() if line.startswith("| ")]
    assert f"BT score (logits) with its {BT_INTERVAL_LABEL}." in board
    assert header.startswith("| rank | id | title | BT score [95 % empirical-Bayes interval] | Elo | matches |")
    cells = [[c.strip() for c in row.split("|")[1:-1]] for row in rows if row.split("|")[1].strip().isdigit()]
    assert [c[1] for c in cells] == [e.id for e in ranked]
    assert [c[3] for c in cells] == [e.bt_text() or "-" for e in ranked]  # `+0.42 [-0.10, +0.95]`
    assert [c[4] for c in cells] == [f"{e.elo:.0f}" for e in ranked]
    fitted = [e.bt[0] for e in ranked if e.bt]
    assert len(fitted) >= 2 and fitted == sorted(fitted, reverse=True)  # the order the column shows
    assert said and "\n## Researcher ratings and experimental results" in md
    section = md[md.index("## Researcher ratings and experimental results"):]
    assert all(f"- {line}" in section for line in said) and second in section and first in section


def test_a_results_measures_read_on_the_page_as_the_command_line_says_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: the page showed an integer measure as ``3.0`` and dropped the ``(text)`` of a text one that
    the terminal showed. Every reader says a measure through one function (``measures_line``)."""
    from cosci.store.researcher import measures_line
    from tests.store.rows import session_with

    data = tmp_path / "data"
    sid, (h, _) = session_with(data, ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO"))
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", sid, h, "--outcome", "inconclusive",
                          "--measure", "wells=3", "--measure", "ic50_nM=12.5", "--measure", "assay=HTRF")
    said = "wells = 3, ic50_nM = 12.5, assay = 'HTRF' (text)"
    assert code == 0 and f"measures: {said}" in out, err
    assert measures_line({"wells": 3.0, "ic50_nM": 12.5, "assay": "HTRF"}) == said
    code, out, _ = _cli(capsys, "--data-dir", str(data), "report", sid)
    assert code == 0 and f"Measures: {said}" in out and "3.0" not in out, out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "report", sid, "--html")
    page = Path(out.strip()).read_text(encoding="utf-8")
    assert code == 0 and "Measures: wells = 3, ic50_nM = 12.5, assay = &#39;HTRF&#39; (text)" in page
    assert "wells = 3.0" not in page


def test_the_agreement_line_counts_the_preferences_left_out_of_the_comparison(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: after three preferences and a refuted hypothesis the line read "1 of 1" and hid the two
    left out. Every reader (`cosci report`, the page, the md export, the overview's appendix) shows one line that
    counts them, by why; with none compared it says so rather than "no preference"."""
    from cosci.agents.researcher_context import researcher_appendix
    from cosci.store import STORE_FILE, SessionStore
    from tests.store.rows import insert_hypothesis, session_with

    data = tmp_path / "data"
    sid, (a, b, c, d) = session_with(data, ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO",
                                            "Venetoclax spares HSCs", "Azacitidine primes apoptosis"))
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    draft = insert_hypothesis(store, "Statins starve the niche")  # not yet in the tournament
    store.matches.apply("M-1", a, b, mode="pairwise", winner=a, rule=lambda *_: (16.0, 32.0), rationale="",
                        transcript=[], task_id=None)  # the judge: a over b
    store.close()
    for first, second in ((a, b), (a, c), (d, c), (draft, a)):
        code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, first, second, "--prefer", "a")
        assert code == 0, err

    def lines() -> list[str]:
        code, report, err = _cli(capsys, "--data-dir", str(data), "report", sid)
        assert code == 0, err
        code, out, err = _cli(capsys, "--data-dir", str(data), "report", sid, "--html")
        assert code == 0, err
        page = Path(out.strip()).read_text(encoding="utf-8")
        code, md, err = _cli(capsys, "--data-dir", str(data), "export", sid, "--format", "md", "--out", "-")
        assert code == 0, err
        store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
        appendix = researcher_appendix(store, 1.0)
        store.close()
        said = [line.removeprefix("- ") for line in appendix.splitlines() if "researcher vs tournament" in line]
        assert len(said) == 1, appendix
        for text in (report, md):
            assert f"\n- {said[0]}\n" in text + "\n", text
        assert f"<p>{said[0]}</p>" in page
        return said

    code, _, err = _cli(capsys, "--data-dir", str(data), "result", sid, c, "--outcome", "refuted")
    assert code == 0, err
    assert lines() == ["researcher vs tournament: 1 of 1 preference agrees with the judge-only Bradley–Terry order "
                       "(2 more name a hypothesis out of the ranking; 1 more names a hypothesis not yet in the "
                       "tournament)"]
    code, _, err = _cli(capsys, "--data-dir", str(data), "result", sid, b, "--outcome", "refuted")
    assert code == 0, err
    assert lines() == ["researcher vs tournament: no preference to compare with the judge-only Bradley–Terry order "
                       "(3 name a hypothesis out of the ranking; 1 names a hypothesis not yet in the tournament)"]


def test_a_killed_session_is_stopped_in_the_report_and_the_exports(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: a session whose process was killed (its row still `running`, no process holding its lock)
    is `stopped` in `cosci status` and `cosci list`, but `cosci report` and `cosci export --format md|html` called it
    running. They say the word `cosci status` says (:func:`cosci.session.folder.shown_status`)."""
    from cosci.session.folder import SessionFolder
    from tests.store.rows import session_with

    data = tmp_path / "data"
    sid, _ = session_with(data, ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO in AML blasts"))
    with SessionFolder(data, sid).store() as store:
        assert store.sessions.status() == "running"
    base = ("--data-dir", str(data))
    _, status, _ = _cli(capsys, *base, "status", sid)
    assert f"{sid} (stopped" in status, status
    code, out, err = _cli(capsys, *base, "report", sid)
    assert code == 0 and "no overview yet (stopped)" in out and "running" not in out.split("\n")[0], err
    code, out, err = _cli(capsys, *base, "export", sid, "--format", "md", "--out", "-")
    assert code == 0 and "No overview yet (stopped)." in out, err
    code, out, err = _cli(capsys, *base, "export", sid, "--format", "html", "--out", "-")
    assert code == 0 and "<dd>stopped (its process ended" in out and "session in progress" not in out, err


@pytest.mark.parametrize("fmt", ["bibtex", "ris"])
def test_export_of_no_cited_works_says_so_and_writes_no_file(session: Session, tmp_path: Path, fmt: str,
                                                               capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A session citing no work: one line on stderr, exit 0, no empty file (docs/commands.md)."""
    from cosci.report import citations

    monkeypatch.setattr(citations, "works", lambda store, top=0: [])
    target = tmp_path / f"refs.{'bib' if fmt == 'bibtex' else 'ris'}"
    args = ("--data-dir", str(session.data), "export", session.sid, "--format", fmt)
    code, out, err = _cli(capsys, *args, "--out", str(target))
    assert (code, out, err) == (0, "", f"cosci: no cited works in session {session.sid}: nothing to export\n")
    assert not target.exists()
    assert _cli(capsys, *args) == (0, "", err)


@pytest.mark.parametrize("target", ["store.sqlite", "store.sqlite-wal", "mlflow"])
def test_an_out_naming_a_database_is_refused_and_the_database_kept(finished_copy: FinishedCopy, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    target: str) -> None:
    """Fresh-user trial: `cosci export <id> --format jsonl --out data/sessions/<id>/store.sqlite` wrote the export
    over the session's store, and every later command read "the store ... is damaged". An --out that is a SQLite
    database (a session's store, MLflow's) or its write-ahead log is refused in one line, exit 2, the file kept."""
    import sqlite3

    data = tmp_path / "data"
    sid = finished_copy(data)
    folder = data / "sessions" / sid
    if target == "mlflow":
        path = data / "mlflow.db"
        sqlite3.connect(path).execute("create table t (x)").connection.close()
    else:
        path = folder / target
        if not path.exists():
            path.write_bytes(b"\x37\x7f\x06\x82" + bytes(28))  # a WAL file's header beside its database
    before = path.read_bytes()
    for args in (["export", sid, "--format", "jsonl", "--out", str(path)], ["report", sid, "--out", str(path)]):
        code, out, err = _cli(capsys, "--data-dir", str(data), *args)
        assert code == 2 and err.count("\n") == 1, err
        assert f"--out {path}: is a SQLite database" in err and "nothing was written" in err, err
    assert path.read_bytes() == before
    code, out, _ = _cli(capsys, "--data-dir", str(data), "status", sid)
    assert code == 0 and sid in out


@pytest.mark.parametrize("exists", [False, True])
def test_an_out_ending_with_a_slash_is_a_folder_and_nothing_is_written(session: Session, tmp_path: Path, exists: bool,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci export <id> --format jsonl --out newdir/` wrote a file named `newdir` (the slash
    dropped). An --out ending with "/" names a folder: refused in one line, exit 2, nothing written."""
    folder = tmp_path / "newdir"
    if exists:
        folder.mkdir()
    out = f"{folder}/"
    for args in (["export", session.sid, "--format", "jsonl", "--out", out], ["report", session.sid, "--out", out]):
        code, stdout, err = _cli(capsys, "--data-dir", str(session.data), *args)
        assert (code, stdout) == (2, "") and err == f"cosci: --out {out}: names a folder (it ends with /); name a " \
                                                    "file in it; nothing was written\n", err
        assert (folder.is_dir() and not any(folder.iterdir())) if exists else not folder.exists()


def test_export_without_format_follows_the_out_name(session: Session, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci export <id> --out s.jsonl` answered "the following arguments are required: --format",
    though the name says the format (`cosci report --out F.html` already follows the name). Without --format the
    ending of --out chooses it; with neither, one line names both ways."""
    base = ("--data-dir", str(session.data), "export", session.sid)
    out = tmp_path / "s.jsonl"
    code, stdout, err = _cli(capsys, *base, "--out", str(out))
    assert (code, stdout, err) == (0, f"{out}\n", "")
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["type"] == "session"
    for args in ([], ["--out", "-"], ["--out", str(tmp_path / "s.txt")]):
        code, stdout, err = _cli(capsys, *base, *args)
        assert (code, stdout) == (2, "") and err == "cosci: export needs --format md|html|jsonl|bibtex|ris, or an " \
            "--out whose name ends as one (.md, .html, .jsonl, .bib, .ris)\n", err
    assert not (tmp_path / "s.txt").exists()


@pytest.mark.parametrize("where", ["missing folder", "a folder named x.html"])
def test_the_page_into_a_path_that_cannot_be_written_is_one_line(session: Session, tmp_path: Path, where: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci report <id> --html --out /proc/x.html` ended in a traceback, and `--out
    /nonexistent/x.html` made the folder, where `cosci export --format html` says one line for both. The page's
    --out goes through the same check: one line, exit 2, nothing made."""
    target = tmp_path / "nowhere" / "x.html" if where == "missing folder" else tmp_path / "x.html"
    if where != "missing folder":
        target.mkdir()
    said = []
    for args in (["report", session.sid, "--html", "--out", str(target)],
                 ["export", session.sid, "--format", "html", "--out", str(target)]):
        code, out, err = _cli(capsys, "--data-dir", str(session.data), *args)
        assert (code, out) == (2, "") and err.count("\n") == 1 and err.startswith(f"cosci: --out {target}: "), err
        said.append(err)
    assert said[0] == said[1]
    assert target.is_dir() if where != "missing folder" else not target.parent.exists()
    assert not list(tmp_path.rglob("*.tmp"))


def test_an_out_that_fails_part_way_leaves_the_earlier_file_and_no_part(tmp_path: Path) -> None:
    """Break-it pass: ``cosci export --out keep.jsonl`` under a 64 KiB file size limit left 64 KiB of the export
    over the earlier file (``File too large``); the file is written whole or not at all (design.md#report)."""
    import subprocess
    import sys

    out = tmp_path / "keep.jsonl"
    out.write_text("the earlier export\n", encoding="utf-8")
    out.chmod(0o640)
    code = ("import resource, signal\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
            "from cosci.errors import CosciError\n"
            "from cosci.report.commands import write_out\n"
            "try:\n"
            f"    write_out({str(out)!r}, 'x' * 10000)\n"
            "except CosciError as exc:\n"
            "    print(exc)\n")
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert said.stdout == f"--out {out}: cannot write it (File too large); nothing was written\n", said
    assert out.read_text(encoding="utf-8") == "the earlier export\n" and [p.name for p in tmp_path.iterdir()] == [
        "keep.jsonl"]
    from cosci.report.commands import write_out

    assert write_out(str(out), "a new export\n") == out  # a whole write replaces it, keeping its mode
    assert out.read_text(encoding="utf-8") == "a new export\n" and out.stat().st_mode & 0o777 == 0o640
    link = tmp_path / "link.jsonl"
    link.symlink_to(out)
    write_out(str(link), "through the link\n")
    assert link.is_symlink() and out.read_text(encoding="utf-8") == "through the link\n"
