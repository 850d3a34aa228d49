"""A concrete falsification contract for the hypotheses tests build (``docs/design.md#falsification``)."""

CONTRACT: dict[str, str] = {
    "decisive_experiment": "Treat the cells and count colonies at day 7.",
    "predicted_result": "The colony count falls by at least 30 %.",
    "refuting_result": "The colony count changes by less than 5 %.",
}
