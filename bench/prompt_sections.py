"""Where a kept embedded demo run's model time and evaluated prompt tokens go: ``python -m bench.prompt_sections RUN``.

``RUN`` is one run's data folder kept by ``python -m bench.demo --keep DIR``. Two tables (bench/README.md, "The
thirteenth stop"; docs/design.md#local-prompt-fit):

- per agent and mode, from the call log (``models.local.call_log``): calls, prompt tokens sent and evaluated (not
  reused from a prompt state), tokens generated, llama.cpp's prompt seconds, its decode seconds with the draws, the
  calls' wall and CPU seconds and their shares of the calls' totals (on a loaded machine the CPU shares are the
  ones to read);
- per kind of prompt section: each call's prompt is rebuilt as the session sent it (:func:`bench.prompt_reuse.
  session_prompts`'s way, with the run's own ``models.local`` settings), cut at its system prompt, messages and the
  user messages' ``## `` sections, each piece's token range found by tokenizing the text before it, and the
  evaluated tokens (the prompt's last ``prompt_evaluated``) counted to the kind of the piece they fall in
  (:data:`KINDS` by heading; the text before a user message's first heading is ``opening``).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.prompt_reuse import kept_run

KINDS = (("## Objective", "objective"), ("## Hypothes", "hypotheses"), ("## Top hypotheses", "hypotheses"),
         ("## Literature", "literature"), ("## Nearest prior work", "literature"), ("## Falsification", "contract"),
         ("## Reviews", "reviews and rationales"), ("## Tournament debate", "reviews and rationales"),
         ("## Latest system feedback", "reviews and rationales"), ("## Steps", "instructions"),
         ("## How", "instructions"), ("## Record", "instructions"), ("## What to record", "instructions"),
         ("## Write the overview", "instructions and example"), ("## <name", "instructions and example"),
         ("## Citation", "instructions"), ("## Your contribution", "instructions"),
         ("## The discussion so far", "discussion"), ("## The debate", "discussion"))
"""Section kinds by heading prefix, the demo's templates' headings; another ``## `` heading inside a user message is
the debate's own text (a turn the model headed), counted as ``discussion``."""
SECTION = re.compile(r"(?m)^(?=## )")


def kind(section: str) -> str:
    for heading, name in KINDS:
        if section.startswith(heading):
            return name
    return "discussion" if section.startswith("## ") else "opening"


def pieces(text: str, fitted: list[dict[str, str]]) -> list[tuple[int, str]]:
    """``(character offset, kind)`` where each piece of the formatted prompt ``text`` starts (chat markup between
    messages is ``markup``)."""
    out: list[tuple[int, str]] = []
    pos = 0
    for message in fitted:
        content = message["content"]
        start = text.index(content, pos) if content else pos
        out.append((pos, "markup"))
        if message["role"] == "user":
            offset = start
            for part in SECTION.split(content):
                out.append((offset, kind(part)))
                offset += len(part)
        else:
            out.append((start, "system prompt" if message["role"] == "system" else "discussion"))
        pos = start + len(content)
    out.append((pos, "markup"))
    return out


def tables(run: Path) -> tuple[dict[tuple[str, str], list[float]], dict[str, list[int]]]:
    """Per (agent, mode): ``[calls, sent, evaluated, generated, prompt s, decode + draws s, wall s, CPU s]``; per kind:
    ``[sent, evaluated]`` tokens."""
    from cosci.llm.responses import plain_messages

    vocab, formatter, provider, log, systems, rows = kept_run(run, "agent, mode, request, system_sha256")

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode(), add_bos=False, special=True))

    modes: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0] * 8)
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (agent, mode, request, sha), entry in zip(rows, log, strict=False):
        chat = ([{"role": "system", "content": systems[sha]}] if sha else []) + plain_messages(
            json.loads(request)["messages"])
        fitted: Any = provider._fit(chat, int(entry["max_tokens"]))
        text = formatter(messages=fitted).prompt
        starts = pieces(text, fitted)
        bounds = [count(text[:offset]) for offset, _ in starts] + [count(text)]
        first_evaluated = entry["prompt_tokens"] - entry["prompt_evaluated"]
        for (_, name), a, b in zip(starts, bounds, bounds[1:], strict=False):
            kinds[name][0] += b - a
            kinds[name][1] += max(0, b - max(a, first_evaluated))
        row = modes[(agent, mode)]
        for i, value in enumerate((1, entry["prompt_tokens"], entry["prompt_evaluated"], entry["generated"],
                                   entry["prompt_eval_ms"] / 1000,
                                   (entry["generation_ms"] + entry["sampling_ms"]) / 1000, entry["wall_seconds"],
                                   entry["cpu_seconds"])):
            row[i] += value
    vocab.close()
    return dict(modes), dict(kinds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="one run's data folder kept by `python -m bench.demo --keep`")
    args = parser.parse_args(argv)
    modes, kinds = tables(args.run)
    wall = sum(r[6] for r in modes.values()) or 1.0
    cpu = sum(r[7] for r in modes.values()) or 1.0
    print("| agent/mode | calls | prompt sent | evaluated | generated | prompt s | decode + draws s | wall s "
          "| share of the calls' wall | CPU s | share of the calls' CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (agent, mode), r in sorted(modes.items(), key=lambda kv: -kv[1][6]):
        print(f"| {agent}/{mode} | {r[0]:.0f} | {r[1]:.0f} | {r[2]:.0f} | {r[3]:.0f} | {r[4]:.1f} | {r[5]:.1f} | "
              f"{r[6]:.1f} | {100 * r[6] / wall:.1f} % | {r[7]:.1f} | {100 * r[7] / cpu:.1f} % |")
    evaluated = sum(v[1] for v in kinds.values()) or 1
    print("\n| section | tokens sent | evaluated | share of evaluated |\n|---|---|---|---|")
    for name, (sent, ev) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"| {name} | {sent} | {ev} | {100 * ev / evaluated:.1f} % |")
    print(f"\nevaluated, attributed {evaluated}, logged {sum(r[2] for r in modes.values()):.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
