"""Whether the prompt fit changes the embedded model's decisions: ``python -m bench.fit_draws REQUESTS``.

``REQUESTS`` is a session's embedded-model requests as ``python -m bench.draft_replay capture`` logs them (JSON lines,
made with the prompt fit off). A *decision call* is one whose schema asks for a choice among a few values (a match's
``better_idea``, a verification's ``verdict``): the schedule of a session follows those choices (an evolved
hypothesis that wins its first match retires its parent and another evolution refills its slot,
docs/design.md#retired). Each decision call is made again in a bare process (the session's model settings, one
thread) once per run seed ``0 .. N-1`` in three arms (docs/design.md#local-prompt-fit):

- ``whole``: the request as sent, seeded as the provider seeds it for that run seed (from the run seed, the messages
  and the schema);
- ``fit``: each user message fitted (``--quote-chars``, ``--lead``: :func:`cosci.llm.local.prompt_fit.fit_user_text`)
  and seeded from the fitted messages, as the provider did before the fit's seed was tied to the request;
- ``fit_same_seed``: the fitted messages seeded from the whole ones (as the provider seeds a fitted request now).

The discussion a debate's verdict reads is the session's (its turn is not made again). Printed per call (JSON
lines): the seeds giving each choice per arm, how many of the N seeds give ``fit``'s and ``fit_same_seed``'s choice
equal to ``whole``'s, and the mean tokens generated per arm (``--calls`` also takes calls that decide nothing, for
those). Tokens are seeded per request, so the counts do not depend on the
machine's load.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from cosci.llm.local.prompt_fit import LEAD_SECTIONS, fit_user_text

CHOICE_KEYS = ("better_idea", "verdict")
"""Schema properties whose value is a decision (an ``enum``)."""


def decision_key(request: dict[str, Any]) -> str | None:
    """The property of ``request``'s schema that holds a decision (:data:`CHOICE_KEYS`, with an ``enum``), or None."""
    props = request.get("response_format", {}).get("schema", {}).get("properties", {})
    return next((k for k in CHOICE_KEYS if "enum" in props.get(k, {})), None)


def seeded(run_seed: int, messages: list[dict[str, str]], schema: Any) -> int:
    """The sampler seed the embedded provider gives a request (cosci/llm/local/model.py ``_complete``)."""
    digest = hashlib.sha256(json.dumps([run_seed, messages, schema], sort_keys=True, default=str).encode())
    return int(digest.hexdigest()[:8], 16)


def fitted(messages: list[dict[str, str]], quote_chars: int | None, lead: bool) -> list[dict[str, str]]:
    """``messages`` with each user message as the provider fits it (system and assistant messages unchanged)."""
    heads = LEAD_SECTIONS if lead else ()
    return [{**m, "content": fit_user_text(m["content"], quote_chars, heads)} if m["role"] == "user" else dict(m)
            for m in messages]


def choice(text: str, key: str) -> Any:
    """The decision in an answer's JSON text (None: no JSON object or no such key)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value.get(key) if isinstance(value, dict) else None


def summarise(index: int, key: str | None, picks: dict[str, list[Any]], tokens: dict[str, list[int]]) -> dict[str, Any]:
    """One call's row: the choices' counts per arm, the seeds on which each fitted arm agrees with ``whole``, and
    the mean tokens generated per arm (``tokens``: each seed's, by arm)."""
    whole = picks["whole"]
    row: dict[str, Any] = {"call": index, "key": key, "seeds": len(whole)}
    for arm, got in picks.items():
        row[arm] = dict(sorted(Counter(str(g) for g in got).items()))
        row[f"{arm}_generated"] = round(sum(tokens[arm]) / max(len(tokens[arm]), 1), 1)
    for arm in ("fit", "fit_same_seed"):
        row[f"{arm}_agrees"] = sum(a == b for a, b in zip(picks[arm], whole, strict=True))
    return row


def run(requests: Path, seeds: int, quote_chars: int | None, lead: bool, calls: list[int] | None) -> list[dict]:
    """Every decision call of ``requests`` (or the calls at ``calls``, 0-based, decisions or not: their tokens
    generated) in the three arms for run seeds ``0 .. seeds-1``; one row per call (:func:`summarise`), printed as
    it is done."""
    from cosci.llm.local.model import DEFAULT_CFG, LocalModelProvider, strict_json

    reqs = [json.loads(line) for line in requests.read_text().splitlines() if line.strip()]
    provider = LocalModelProvider()
    provider.configure(DEFAULT_CFG.model_copy(update={"n_threads": 1}))
    rows = []
    for i, req in enumerate(reqs):
        key = decision_key(req)
        if (key is None and calls is None) or (calls is not None and i not in calls):
            continue
        schema = req.get("response_format", {}).get("schema")
        whole, fit = req["messages"], fitted(req["messages"], quote_chars, lead)
        picks: dict[str, list[Any]] = {"whole": [], "fit": [], "fit_same_seed": []}
        tokens: dict[str, list[int]] = {arm: [] for arm in picks}
        for arm, messages in (("whole", whole), ("fit", fit), ("fit_same_seed", fit)):
            for s in range(seeds):
                seed = seeded(s, fit if arm == "fit" else whole, schema)
                out, cost = provider._run({**req, "messages": messages, "seed": seed})
                text = out["choices"][0]["message"].get("content") or ""
                picks[arm].append(choice(strict_json(text), key) if key else None)
                tokens[arm].append(cost["generated"])
        row = summarise(i, key, picks, tokens)
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("requests", type=Path)
    parser.add_argument("--seeds", type=int, default=20, help="run seeds 0 .. N-1")
    parser.add_argument("--quote-chars", type=int, default=250, help="models.local.quote_chars of the fitted arms")
    parser.add_argument("--no-lead", action="store_true", help="leave the sections in place (lead_sections [])")
    parser.add_argument("--calls", default=None, help="0-based indices of the decision calls to make, comma-separated")
    args = parser.parse_args(argv)
    calls = [int(c) for c in args.calls.split(",")] if args.calls else None
    run(args.requests, args.seeds, args.quote_chars, not args.no_lead, calls)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
