"""bench.demo's arms: environment assignments apart from Hydra overrides (the compared arm's earlier waiting,
``OMP_WAIT_POLICY=PASSIVE``), and the microbenchmark run with the session's own settings (bench/README.md, "The
eighth stop")."""

from __future__ import annotations

from bench.model_speed import local_settings, split_arm


def test_an_arm_splits_into_environment_assignments_and_hydra_overrides() -> None:
    env, overrides = split_arm(["OMP_WAIT_POLICY=PASSIVE", "models.local.weights=shipped", "GOMP_SPINCOUNT=0",
                                "models.local.caller=shared_pool", "+extra.KEY=A=B"])
    assert env == {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "0"}
    assert overrides == ["models.local.weights=shipped", "models.local.caller=shared_pool", "+extra.KEY=A=B"]


def test_the_microbenchmark_takes_the_session_s_context_batch_and_threads_with_overrides() -> None:
    defaults = local_settings([])
    assert defaults == {"weights": "q4_0", "decoding": "grammar_last", "n_threads": "auto",
                        "generation_threads": "1", "n_ctx": "4096", "n_batch": "256", "jump_forward": "False",
                        "compact_json": "False"}  # conf/models/local.yaml
    changed = local_settings(["models.local.n_threads=2", "models.local.n_ctx=2048", "run.seed=3",
                              "models.local.generation_threads=null"])  # the compared arm's: as before the setting
    assert changed == {**defaults, "n_threads": "2", "n_ctx": "2048", "generation_threads": "null"}
