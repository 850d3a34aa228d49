"""A researcher's command-line inputs checked before anything is written (cosci/session/inputs.py, design.md#cli):
the length of a text, the case and form of an id, the other session holding a hypothesis. Sessions here are folders
with rows inserted (:func:`tests.store.rows.session_with`): no task runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.session.folder import SessionFolder
from cosci.session.inputs import TEXT_MAX_CHARS
from tests.conftest import run_cli
from tests.store.rows import session_with

STATEMENTS = ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO in AML blasts")


def _recorded(data: Path, sid: str) -> tuple[int, int, int]:
    """Ratings, results and cosci-feedback texts the session's store holds."""
    with SessionFolder(data, sid).store() as store:
        return (len(store.researcher.ratings()), len(store.researcher.observations()),
                len(store.logs.feedback(source="human")))


def test_a_researcher_text_over_the_limit_is_refused_in_one_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: a 108 KB ``--why`` was accepted. Every researcher text is refused over the limit, the line
    naming the limit and the length given, and nothing is recorded; a text at the limit is recorded."""
    data = tmp_path / "data"
    sid, (a, b) = session_with(data, STATEMENTS)
    long = "x" * 108_000
    for args, flag in [(["rate", sid, a, "--score", "3", "--why", long], "--why"),
                       (["rate", sid, a, b, "--prefer", "a", "--why", long], "--why"),
                       (["result", sid, a, "--outcome", "supported", "--notes", long], "--notes"),
                       (["result", sid, a, "--outcome", "supported", "--measure", f"assay={long}"], "--measure"),
                       (["feedback", sid, "--kind", "directive", "--text", long], "--text")]:
        code, out, err = run_cli(capsys, "--data-dir", str(data), *args)
        assert code == 2 and not out and err.count("\n") == 1, err
        given = len(args[args.index(flag) + 1])  # the measure counts its name too
        assert f"{flag} is {given:,} characters long" in err and f"limit of {TEXT_MAX_CHARS:,}" in err, err
    assert _recorded(data, sid) == (0, 0, 0)
    code, _, err = run_cli(capsys, "--data-dir", str(data), "rate", sid, a, "--score", "3", "--why",
                           "y" * TEXT_MAX_CHARS)
    assert code == 0, err
    assert _recorded(data, sid) == (1, 0, 0)


def test_ids_are_read_in_any_case_and_a_malformed_one_is_told_the_form(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: ``H-ABC…`` (upper-case hex) was told it is not hex digits, an 11-digit id got no hint, an
    upper-case session id no hint. Ids are hex: any case is the id cosci wrote; a wrong length is told the form."""
    data = tmp_path / "data"
    sid, (a, b) = session_with(data, STATEMENTS)
    code, out, err = run_cli(capsys, "--data-dir", str(data), "rate", sid.upper(), "H-" + a[2:].upper(),
                             "h-" + b[2:], "--prefer", "a")
    assert code == 0 and f"({a} vs {b}: prefer a)" in out, err
    with SessionFolder(data, sid).store() as store:
        assert [(r.hyp_a, r.hyp_b) for r in store.researcher.ratings()] == [(a, b)]  # stored as cosci writes ids
    code, out, err = run_cli(capsys, "--data-dir", str(data), "status", sid.upper())
    assert code == 0 and f"session      {sid} " in out, err
    for given in (a[:-1], a + "0", a[:-1].upper()):  # 11 or 13 hex digits
        code, _, err = run_cli(capsys, "--data-dir", str(data), "rate", sid, given, "--score", "3")
        assert code == 2 and err.count("\n") == 1, err
        assert f"H- and 12 hex digits, not {len(given) - 2}, like H-" in err, err
    code, _, err = run_cli(capsys, "--data-dir", str(data), "status", sid[:-1])
    assert code == 2 and f"no session '{sid[:-1]}'" in err, err
    assert f"starting with it: {sid} (give the whole id)" in err, err
    code, _, err = run_cli(capsys, "--data-dir", str(data), "rate", sid, "h-" + a[2:].upper(), "--why", "x")
    assert code == 2 and "one hypothesis needs --score 1-5" in err, err  # the id was read; the rating is incomplete
    assert _recorded(data, sid)[0] == 1


def test_an_id_of_another_plain_session_names_that_session(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The other-session hint worked inside a project only: a session in no project is told the newest other
    session under the data folder holding the id (its store read only)."""
    data = tmp_path / "data"
    first, _ = session_with(data, STATEMENTS)
    others = ("Venetoclax resistance runs through MCL-1", "Disulfiram inhibits ALDH1A1 in blasts")
    other, (elsewhere, _) = session_with(data, others, sid="s-20261203-130000-fedcba")
    code, _, err = run_cli(capsys, "--data-dir", str(data), "rate", first, elsewhere, "--score", "3")
    assert code == 2 and err.count("\n") == 1, err
    assert err.strip().endswith(f"no hypothesis {elsewhere!r} in session {first}; it is a hypothesis of session "
                                f"{other}"), err
    code, _, err = run_cli(capsys, "--data-dir", str(data), "rate", first, "H-000000000000", "--score", "3")
    assert code == 2 and "it is a hypothesis of" not in err, err  # held nowhere: no hint
    assert _recorded(data, first)[0] == 0 and _recorded(data, other)[0] == 0
