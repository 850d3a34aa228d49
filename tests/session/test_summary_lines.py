"""The end-of-run summary names the files README's example shows: the overview, the report page (when it was
written), the store."""

from __future__ import annotations

from pathlib import Path

from cosci.session.summary import SessionSummary


def test_the_summary_names_the_report_page_when_it_was_written(tmp_path: Path) -> None:
    overview = tmp_path / "final" / "overview.md"
    overview.parent.mkdir()
    overview.write_text("# overview\n", encoding="utf-8")

    def lines() -> list[str]:
        return SessionSummary("s-1", "idle", 0.0, 0, 3, 0, 1200.0, 1.0, str(overview), "s.sqlite", None).lines()

    assert not [line for line in lines() if line.startswith("report")]  # a fresh user's run had no such line
    (overview.parent / "report.html").write_text("<html></html>", encoding="utf-8")
    assert f"report    {overview.parent / 'report.html'}" in lines()


def test_a_refused_goal_counts_no_results_it_never_made() -> None:
    """Fresh-user report: a refused goal's summary read "results 0 hypotheses, 0 matches, top Elo 1200"."""
    refused = SessionSummary("s-1", "refused", 0.0, 0, 0, 0, 1200.0, 1.0, "o.md", "s.sqlite", None).lines()
    assert not [line for line in refused if line.startswith("results")] and "stopped   refused after 1 s" in refused
    done = SessionSummary("s-1", "idle", 0.0, 0, 0, 0, 1200.0, 1.0, "o.md", "s.sqlite", None).lines()
    assert "results   0 hypotheses, 0 matches, top Elo 1200" in done


def test_an_interrupted_summary_ends_with_how_to_resume() -> None:
    """Fresh-user trial: the resume line stood above the store and MLflow lines, and a bare "cosci: interrupted"
    came after it all. In order: interrupted, what was saved, how to resume (last)."""
    lines = SessionSummary("s-1", "interrupted", 0.0, 0, 0, 0, 1200.0, 6.0, "o.md", "s.sqlite", "run1",
                           tracking_uri="sqlite:///m.db").lines()
    assert lines[1] == "stopped   interrupted after 6 s" and lines[-1] == "continue  cosci resume s-1", lines
    assert lines.index("store     s.sqlite") < len(lines) - 1 and any(line.startswith("mlflow") for line in lines)
