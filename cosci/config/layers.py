"""Configuration layers under the command line: the user's file and the project's file
(docs/configuration.md#groups-and-layers, docs/design.md#config-layers).

Precedence, lowest first: ``conf/`` (the groups' defaults, then the experiment's values), the user file
(``$XDG_CONFIG_HOME/cosci/config.yaml``, by default ``~/.config/cosci/config.yaml``), the project file
(``./cosci.yaml`` in the working directory), the command line. A layer file is YAML holding config keys nested as
in ``conf/config.yaml`` (``run: {budget_usd: 5}``) or dotted (``run.budget_usd: 5``); a top-level group key with a
name (``ranking: thorough``) chooses that group's option. Each layer becomes Hydra overrides placed before the
command line's, so Hydra merges them in that order; a key (or group) the command line sets drops the layer's.

Secrets come only from the environment: a key named like one (``api_key``, ``token``, ``secret``, ``password``...)
with a value, or a value shaped like one (``sk-...``, a long run of letters and digits, a URL with a password), is
refused in one line naming the file and the key, and nothing is composed or written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from cosci.config.renames import old_key_message, old_value_message
from cosci.text import one_line, unreadable_file

PROJECT_FILE = "cosci.yaml"
"""The project layer: this file in the working directory."""

GROUPS = ("models", "agents", "ranking", "safety", "budget", "tools", "tracking", "experiment")
"""Config groups a layer may choose an option of (``ranking: thorough``); the primary defaults list's groups."""

SECRET_NAME = re.compile(r"(^|_)(api_?key|apikey|secret|password|passwd|passphrase|credentials?|private_?key|"
                         r"access_?key|auth)(_|$)|(^|_)token$", re.IGNORECASE)
"""A key named like a secret (``api_key``, ``openai_api_key``, ``hf_token``, ``client_secret``). Not ``*_env``,
which names the environment variable a secret is read from (``models.tiers.<t>.api_key_env``); not
``budget_tokens`` or ``first_token_seconds`` (a count, a time)."""

SECRET_PREFIX = re.compile(r"^(sk-|sk_live_|sk_test_|rk_live_|ghp_|gho_|ghs_|github_pat_|glpat-|xox[abpr]-|AKIA|ASIA|"
                           r"AIza|hf_|gsk_|pplx-|r8_|tvly-|pk-lf-|sk-lf-)[A-Za-z0-9_\-]{8,}$")
"""Values shaped like a provider's key (OpenAI/Anthropic ``sk-``, GitHub, GitLab, Slack, AWS, Google, Hugging Face,
Groq, Perplexity, Replicate, Tavily, Langfuse)."""

KEY_RUN = re.compile(r"[A-Za-z0-9]{24,}")
"""A run of 24 or more letters and digits with no separator: a bare key (NCBI's 36 hex digits, Semantic Scholar's 40
characters, Brave's 31); model ids, session ids, dates and words break into shorter runs."""

URL_PASSWORD = re.compile(r"://[^/@\s:]+:[^/@\s]+@")
"""A URL carrying a password (``https://user:pass@host``)."""


class LayerError(ValueError):
    """A layer file that cannot be used; ``str(err)`` is one line naming the file (and the key)."""


def user_file(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/cosci/config.yaml``; ``~/.config/cosci/config.yaml`` when the variable is unset or empty
    (the XDG base directory rule)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "cosci" / "config.yaml"


def layer_files(cwd: Path | None = None) -> list[Path]:
    """The layer files that exist, lowest precedence first: the user file, then ``./cosci.yaml``."""
    project = (cwd or Path.cwd()) / PROJECT_FILE
    return [p for p in (user_file(), project) if p.is_file()]


def looks_secret(key: str, value: Any) -> bool:
    """Whether ``key: value`` (one leaf) holds a secret: a secret's name with a non-empty value, or a string value
    shaped like a key or a URL with a password."""
    leaf = key.rsplit(".", 1)[-1]
    if value not in (None, "", [], {}) and SECRET_NAME.search(leaf) and not leaf.lower().endswith("_env"):
        return True
    if not isinstance(value, str):
        return False
    words = value.split()
    return (bool(URL_PASSWORD.search(value)) or any(SECRET_PREFIX.match(w) for w in words)
            or any(re.search(r"\d", r) and re.search(r"[A-Za-z]", r) for w in words for r in KEY_RUN.findall(w)))


def _leaves(data: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``(dotted key, value)`` for each leaf of a nested mapping; a list is a leaf, and so is an empty mapping."""
    if isinstance(data, Mapping) and data:
        for key, value in data.items():
            yield from _leaves(value, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, data


def _text(value: Any) -> str:
    """``value`` in Hydra's override grammar: strings always quoted (else ``"1"`` would become the integer 1), a
    quote and the backslashes before it escaped, a trailing backslash doubled."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ",".join(_text(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{_text(v)}" for k, v in value.items()) + "}"
    text = re.sub(r"(\\*)'", lambda m: m.group(1) * 2 + "\\'", str(value))
    return "'" + re.sub(r"(\\+)$", lambda m: m.group(1) * 2, text) + "'"


def _load(path: Path) -> Any:
    """The YAML document of the layer file at ``path``.

    Raises:
        LayerError: one line: the file cannot be read, is not UTF-8 text (its byte, offset and line, and the fix), or
            is not YAML.
    """
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LayerError(unreadable_file(str(path), exc)) from None
    except yaml.YAMLError as exc:
        raise LayerError(f"{path}: cannot be read as YAML ({one_line(str(exc))[:200]})") from None


def read_layer(path: Path) -> list[tuple[str, str]]:
    """The layer file at ``path`` as ``(key, Hydra override)`` pairs, in file order; a group choice's key is the
    group's name.

    Raises:
        LayerError: the file is unreadable or not YAML, holds no mapping, a ``defaults`` list, a secret, an old
            key or value (:mod:`cosci.config.renames`), or a value Hydra's grammar cannot carry.
    """
    data = _load(path)
    if data is None:
        return []
    if not isinstance(data, Mapping):
        raise LayerError(f"{path}: must hold a mapping of config keys (e.g. run: {{budget_usd: 5}})")
    if "defaults" in data:
        raise LayerError(f"{path}: defaults: not read from a layer; choose a group's option as a key (ranking: "
                         "thorough)")
    pairs = []
    for key, value in _leaves(data):
        if looks_secret(key, value):
            raise LayerError(f"{path}: {key}: looks like a secret (an API key, token or password); secrets come only "
                             "from the environment: remove it from the file and export the provider's variable "
                             "(e.g. OPENAI_API_KEY)")
        if message := old_key_message(key) or old_value_message(key, str(value)):
            raise LayerError(f"{path}: {message}")
        pairs.append((key, _override(path, key, value)))
    return pairs


def _override(path: Path, key: str, value: Any) -> str:
    """One Hydra override setting ``key`` to ``value`` (a group choice when ``key`` is a group and ``value`` a name),
    checked to parse back to ``value``.

    Raises:
        LayerError: the override would not carry ``value`` unchanged.
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    override = f"{key}={value}" if key in GROUPS and isinstance(value, str) else f"{key}={_text(value)}"
    try:
        parsed = OverridesParser.create().parse_overrides([override])[0].value()
    except HydraException:
        parsed = None
    if parsed != value:
        raise LayerError(f"{path}: {key}: this value cannot be passed to Hydra unchanged; set it on the command line")
    return override


def _key(override: str) -> str:
    """The key (or group) an override sets, without ``+``/``++``/``~`` and a ``@package``."""
    return override.split("=", 1)[0].lstrip("+~").split("@", 1)[0]


def layer_overrides(overrides: Sequence[str], cwd: Path | None = None) -> list[tuple[Path, str, str]]:
    """The layers' ``(file, key, override)`` that apply under ``overrides`` (the command line's): the user file's,
    then the project file's, each dropped when a later layer or the command line sets the same key or group.

    Raises:
        LayerError: see :func:`read_layer`.
    """
    chosen: dict[str, tuple[Path, str, str]] = {}
    for path in layer_files(cwd):
        for key, override in read_layer(path):
            if key == DATA_DIR and os.environ.get(DATA_DIR_ENV):
                continue  # the environment's data folder wins over a file's, as in every command (data_dir below)
            chosen.pop(key, None)  # re-inserted: a later layer's value comes after the earlier ones
            chosen[key] = (path, key, override)
    given = {_key(o) for o in overrides}
    return [entry for key, entry in chosen.items() if key not in given]


def layered(overrides: Sequence[str], cwd: Path | None = None) -> list[str]:
    """``overrides`` (the command line's) preceded by the overrides of the layers under them
    (:func:`layer_overrides`): what Hydra composes. Applying it twice changes nothing.

    Raises:
        LayerError: see :func:`read_layer`.
    """
    return [o for _, _, o in layer_overrides(overrides, cwd)] + list(overrides)


def naming_file(message: str, layers: Sequence[tuple[Path, str, str]]) -> str:
    """``message`` (one line about a key) prefixed with the layer file that set that key, when one did."""
    for path, key, _ in reversed(layers):
        if message.startswith((f"{key}:", f"{key} ")) or f"'{key}'" in message or f"'{key}/" in message:
            return f"{path}: {message}"
    return message


DATA_DIR = "paths.data_dir"
"""The key of the data folder (sessions, the MLflow store, Prefect's home)."""

DATA_DIR_ENV = "COSCI_DATA_DIR"
"""The environment variable naming the data folder; set (non-empty), it wins over a layer file's
:data:`DATA_DIR` (docs/configuration.md#groups-and-layers)."""


def data_dir(cwd: Path | None = None) -> str | None:
    """The data folder the layer files set (``paths.data_dir``, nested or dotted; ``./cosci.yaml`` over the user
    file), read from the YAML alone (no Hydra compose: ``cosci status`` starts quickly), or None when neither sets
    it. Not resolved: a relative path is relative to the working directory, as for ``python -m cosci.run``.
    :data:`DATA_DIR_ENV` wins over it (the caller checks it first; :func:`layer_overrides` drops the layers' key).

    Raises:
        LayerError: a layer file that sets nothing readable (not YAML, not a mapping; one line naming it).
    """
    found = None
    for path in layer_files(cwd):
        data = _load(path)
        if data is not None and not isinstance(data, Mapping):
            raise LayerError(f"{path}: must hold a mapping of config keys (e.g. run: {{budget_usd: 5}})")
        for key, value in _leaves(data or {}):
            if key == DATA_DIR and value not in (None, ""):
                found = str(value)
    return found


def layer_of(key: str, cwd: Path | None = None) -> Path | None:
    """The layer file whose value of ``key`` applies when the command line does not set it, or None."""
    found = [path for path, k, _ in layer_overrides((), cwd) if k == key]
    return found[-1] if found else None


def override_sets(override: str, keys: set[str]) -> str | None:
    """The key of ``keys`` that ``override`` sets: by its own key, or inside a node it sets (``run={budget_usd:2}``
    sets ``run.budget_usd``). An override Hydra cannot parse clashes with none (the composition names its error)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_override(override)
    except HydraException:
        return None
    key = parsed.key_or_group
    if key in keys:
        return key
    value = parsed.value() if not parsed.is_sweep_override() else None
    for wanted in sorted(keys):
        node: Any = value
        if not wanted.startswith(f"{key}."):
            continue
        for part in wanted.removeprefix(f"{key}.").split("."):
            node = node.get(part, _ABSENT) if isinstance(node, dict) else _ABSENT
        if node is not _ABSENT:
            return wanted
    return None


_ABSENT = object()
