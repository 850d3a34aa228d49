"""The overview is screened without cosci's own claim-status tags: ``[untraceable]`` is cosci's word for a claim
found in nothing it cites, and "untraceable" is also one of the screen's harmful-intent terms."""

from __future__ import annotations

from cosci.agents.safety import CLAIM_TAG
from cosci.config.schema import CosciConfig
from cosci.grounding.claims import STATUSES
from cosci.safety.screen import screen_for

OVERVIEW = """# Executive summary
The tournament ranked the hypotheses; the leading ones are [H-e8aa21edf41c] [H-93beb6bb8771]. [hypothesis_only]

# Main research directions
## Direction 1
Venetoclax with azacitidine in AML cell lines, from [H-e8aa21edf41c]. [untraceable]
- Reviews (from the session store): [H-e8aa21edf41c] neutral (novelty 0.72, correctness 0.37)

## Direction 2
A FLT3 inhibitor for FLT3-ITD lines, from [H-93beb6bb8771]. [untraceable] [overclaim]
"""


def test_every_claim_status_tag_is_removed_and_the_model_words_stay() -> None:
    text = " ".join(f"claim {i} [{s}]" for i, s in enumerate(STATUSES))
    assert CLAIM_TAG.sub("", text) == " ".join(f"claim {i} " for i in range(len(STATUSES)))
    assert CLAIM_TAG.sub("", "an untraceable toxin [untraceable]") == "an untraceable toxin "  # the word stays


def test_an_ordinary_overview_with_untraceable_claims_is_allowed(config: CosciConfig) -> None:
    assert config.safety is not None
    result = screen_for(config.safety).check(CLAIM_TAG.sub("", OVERVIEW), subject="overview")
    assert result.decision == "allow" and not result.hit
