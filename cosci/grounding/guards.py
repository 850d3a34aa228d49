"""Deterministic overclaim guards: a coarse word list run on every claim before the support check
(``docs/design.md#claim-statuses``).

The list is ``conf/overclaim_terms.yaml`` (named by ``metareview.overclaim_terms``): ``terms`` are a hit on their
own; ``unless_trial`` phrases ("shown in randomized trials") are a hit unless a source the claim cites is a
clinical trial. Patterns are case-insensitive regular expressions wrapped in word boundaries, matched on the
sentence with its ``[H-…]`` / ``[S…]`` citations removed. A hit never needs a model; it marks the claim
``overclaim`` and is told to the support check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from cosci.errors import CosciError
from cosci.grounding.term_files import compile_patterns, read_term_file

_CITATION = re.compile(r"\[\s*(?:H-[\w-]+|S\d+)(?:\s*[,;]\s*(?:H-[\w-]+|S\d+))*\s*\]")
_TRIAL = re.compile(r"\b(?:randomi[sz]ed\b.{0,60}\btrials?|phase\s+(?:[1-4]|i{1,3}v?|iv)\b|NCT\d{8})",
                    re.IGNORECASE | re.DOTALL)
TRIAL_TOOLS = ("clinical_trials_search", "clinicaltrials")
KEY = "metareview.overclaim_terms"
"""Tools whose records are trials whatever their text says."""


class GuardError(CosciError):
    """The overclaim term file is missing or malformed."""


@dataclass(frozen=True)
class Guards:
    """Compiled overclaim patterns (see module docstring)."""

    terms: tuple[re.Pattern[str], ...]
    unless_trial: tuple[re.Pattern[str], ...]

    def hits(self, sentence: str, cites_trial: bool = False) -> list[str]:
        """The overclaiming phrases in ``sentence``, as written (empty: none found)."""
        plain = _CITATION.sub(" ", sentence)
        patterns = self.terms + (() if cites_trial else self.unless_trial)
        return list(dict.fromkeys(" ".join(m.group(0).split()) for p in patterns if (m := p.search(plain))))


def is_trial(title: str, text: str, tool: str = "") -> bool:
    """Whether a cited source is a clinical trial (see module docstring)."""
    return any(t in tool for t in TRIAL_TOOLS) or bool(_TRIAL.search(f"{title}\n{text[:4000]}"))


@cache
def load_guards(name: str) -> Guards:
    """Load and compile a term file: ``name`` relative to ``conf/`` or an absolute path.

    Raises:
        GuardError: the file is missing, is not YAML, or has the wrong shape.
    """
    data = read_term_file(name, KEY, ("terms", "unless_trial"), GuardError)
    return Guards(compile_patterns(data.get("terms"), KEY, "terms", GuardError),
                  compile_patterns(data.get("unless_trial", []), KEY, "unless_trial", GuardError))
