"""The bundled offline embedding model: WordLlama ``l2_supercat_256`` (design.md#routing).

WordLlama (PyPI ``wordllama``, MIT) is a static word-embedding model distilled from an LLM's token embeddings:
a text's vector is the average of its tokens' vectors, so no neural network runs, only numpy. Its wheel ships
the weights (``wordllama/weights/l2_supercat_256.safetensors``, 16 MB) and the tokenizer configuration
(``wordllama/tokenizers/``); ``WordLlama.load`` would still try to download the tokenizer unless told where it
is, so it is loaded with ``cache_dir`` = the installed package folder and ``disable_download=True``
(its tokenizer config is in the wheel): it never reaches for the network, and a missing file raises instead of
downloading.

Measured here: loads in ~0.1 s; a paraphrase pair scores ~0.73 cosine where unrelated goals
score 0.15-0.27 (the ``hash`` embedder gives the same paraphrase 0.42). Its cosine scale differs from a hosted
model's, so dedup and clustering thresholds are set per embedding model (``vectors.models``).
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from pathlib import Path
from typing import Any

import numpy as np

WORDLLAMA_MODEL = "wordllama-l2_supercat_256"
"""The name the embedder chain and the store use for the bundled model."""
WORDLLAMA_DIM = 256
_LOCK = threading.Lock()


class StaticModelUnavailable(RuntimeError):
    """The ``wordllama`` package (or a file of its wheel) is missing."""


def package_folder() -> Path:
    """The installed ``wordllama`` package folder, found without importing it.

    Raises:
        StaticModelUnavailable: the package is not installed.
    """
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise StaticModelUnavailable("the 'wordllama' package is not installed (pip install wordllama)")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def _model() -> Any:
    folder = package_folder()
    from wordllama import WordLlama

    try:
        return WordLlama.load(config="l2_supercat", dim=WORDLLAMA_DIM, cache_dir=folder, disable_download=True)
    except FileNotFoundError as exc:  # disable_download: a missing file raises instead of downloading
        raise StaticModelUnavailable(f"wordllama files missing from {folder}: {exc}") from exc


def load() -> None:
    """Load the model once per process (about 0.1 s).

    Raises:
        StaticModelUnavailable: the package or one of its bundled files is missing.
    """
    with _LOCK:
        _model()


def wordllama_embed(texts: list[str]) -> np.ndarray:
    """Embed ``texts`` with the bundled model: ``(len(texts), 256)`` float32, L2-normalised rows.

    Raises:
        StaticModelUnavailable: see :func:`load`.
    """
    if not texts:
        return np.zeros((0, WORDLLAMA_DIM), dtype=np.float32)
    with _LOCK:
        model = _model()
        x = np.asarray(model.embed(list(texts), norm=False), dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)
