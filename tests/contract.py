"""A concrete falsification contract for the hypotheses tests build (``docs/design.md#falsification``)."""

from typing import TypedDict


class Contract(TypedDict):
    decisive_experiment: str
    predicted_result: str
    refuting_result: str


CONTRACT: Contract = {
    "decisive_experiment": "Treat the cells and count colonies at day 7.",
    "predicted_result": "The colony count falls by at least 30 %.",
    "refuting_result": "The colony count changes by less than 5 %.",
}
