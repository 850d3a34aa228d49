"""The section kinds ``python -m bench.prompt_sections`` counts a formatted prompt's tokens to (scripted text), and
the ``models.local`` settings a kept run is replayed with (``bench.prompt_reuse.run_local_cfg``)."""

from __future__ import annotations

from pathlib import Path

import yaml

from bench.prompt_reuse import run_local_cfg
from bench.prompt_sections import kind, pieces
from cosci.llm.local.model import DEFAULT_CFG


def test_each_piece_of_a_formatted_prompt_gets_its_kind_and_offset() -> None:
    fitted = [{"role": "system", "content": "Preamble."},
              {"role": "user", "content": "Judge them.\n\n## Objective\n\nAML.\n\n## Hypothesis 1\n\nH.\n\n"
                                          "## How to judge\n\nCompare.\n\n## What's next?\n\nmodel text"},
              {"role": "assistant", "content": "Turn one."}]
    text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in fitted) + "<|im_start|>assistant\n"
    found = pieces(text, fitted)
    assert [k for _, k in found] == ["markup", "system prompt", "markup", "opening", "objective", "hypotheses",
                                     "instructions", "discussion", "markup", "discussion", "markup"]
    offsets = [o for o, _ in found]
    assert offsets == sorted(offsets) and text[offsets[4]:].startswith("## Objective")
    assert text[offsets[-2]:].startswith("Turn one.") and kind("## Top hypotheses (highest Elo)") == "hypotheses"


def test_a_kept_run_is_replayed_with_its_own_local_settings(tmp_path: Path) -> None:
    """A run from before the prompt-fit settings replays with them off (what it did); a run that set them, with them."""
    local = {"n_ctx": 4096, "n_threads": "auto", "n_batch": 256, "max_string_chars": 100, "max_list_items": 2,
             "temperature": 0.7, "max_tokens": 900, "max_text_tokens": 120, "repeat_penalty": 1.3, "cache_mb": 64,
             "call_log": None}
    folder = tmp_path / "run1" / "hydra" / "2026-12-06" / "12-55-07" / ".hydra"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(yaml.safe_dump({"models": {"local": local}}))
    before = run_local_cfg(tmp_path / "run1")
    assert before.quote_chars is None and before.lead_sections == () and before.max_text_tokens == 120
    (folder / "config.yaml").write_text(yaml.safe_dump({"models": {"local": {
        **local, "quote_chars": 250, "lead_sections": ["## Steps"]}}}))
    after = run_local_cfg(tmp_path / "run1")
    assert after.quote_chars == 250 and after.lead_sections == ("## Steps",)
    assert run_local_cfg(tmp_path / "no-config") == DEFAULT_CFG
