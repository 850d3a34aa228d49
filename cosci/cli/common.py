"""What every ``cosci`` command shares: the data folder, the session named on the command line, the one-line
argument parser, and the normalisation of ids and paths before a command runs (design.md#cli)."""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence
from typing import Any, NoReturn

from cosci.api import data_folder
from cosci.config.errors import NEAR_CHOICE
from cosci.errors import CosciError
from cosci.session.folder import SessionFolder
from cosci.text import escaped

data_dir = data_folder
"""The data folder of ``--data-dir``, else ``$COSCI_DATA_DIR``, else ``paths.data_dir`` of ``./cosci.yaml``, else of
the user file, else ``./data``: where ``python -m cosci.run`` stores a session (:func:`cosci.api.data_folder`)."""


def session_folder(args: argparse.Namespace) -> SessionFolder:
    """The folder of the session named on the command line (``args.session``) under ``--data-dir``.

    Raises:
        SessionNotFound: no such session (one line naming ``cosci list``).
    """
    return SessionFolder.existing(data_dir(args.data_dir), args.session)


def normal_ids(args: argparse.Namespace) -> None:
    """The session and hypothesis ids on the command line in the case cosci writes them (``H-ABC…`` is ``H-abc…``,
    :func:`cosci.ids.normal_id`; design.md#ids), so an id typed in upper case is found, not hinted at; spaces around
    a session id are dropped (no id holds one: a copied id with a trailing space read "no session
    '<id> ' ...; the session id starting with it: <id> (give the whole id)", fresh-user trial). A ``cosci rate`` /
    ``cosci result`` target that names a project or session as typed is left as it is."""
    from cosci.ids import normal_id

    if isinstance(getattr(args, "session", None), str):
        args.session = normal_id(args.session.strip())
    if isinstance(getattr(args, "hypothesis", None), str):
        args.hypothesis = normal_id(args.hypothesis)
    if args.command in ("rate", "result"):
        args.hypotheses = [normal_id(h) for h in args.hypotheses]
        args.withdraw = normal_id(args.withdraw) if args.withdraw else None
        root = data_dir(args.data_dir)
        from cosci.store.project import ProjectStore

        if args.target is not None and not (root / "sessions" / args.target).is_dir() \
                and not ProjectStore.exists(root, args.target):
            args.target = normal_id(args.target)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``cosci: <message> (see `cosci <command> --help`)``, exit 2
    (design.md#cli; argparse's own ``error`` prints the whole usage block first). Subcommand parsers
    are of this class too (``add_subparsers`` makes them of the parent's class).

    Abbreviated options are off (``allow_abbrev=False``): ``cosci run --goa`` ran as ``--goal``, and a typo that
    happens to start another option (``--report`` for ``--reports``) would run it silently as options grow; an
    unknown option is answered with the nearest one instead (:func:`elsewhere`, design.md#cli)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    argv: Sequence[str] = ()
    """The arguments parsed (set by :func:`cosci.cli.parsed`): what :meth:`unknown_command` reads around a word."""

    def error(self, message: str) -> NoReturn:
        message = self.unknown_command(message) or message
        self.exit(2, f"cosci: {escaped(' '.join(message.split()))} (see `{self.prog} --help`)\n")

    def unknown_command(self, message: str) -> str | None:
        """For argparse's "invalid choice" of a command: an unknown option before it, named with the option meant
        (``cosci --data-di d list`` read ``d`` as the command), else the word and the nearest command (``cosci lst``:
        "did you mean `cosci list`?"; fresh-user trial, design.md#cli); None for any other message."""
        if message == "the following arguments are required: command":  # `cosci`, `cosci --hepl`
            known = self._option_string_actions
            unknown = [a for a in self.argv if a.startswith("-") and a.split("=", 1)[0] not in known]
            choices = self._subparsers._group_actions[0].choices if self._subparsers else None
            commands = ", ".join(str(c) for c in choices or ())
            return (f"unknown option {unknown[0]}{elsewhere(None, unknown[:1], self)}" if unknown else
                    f"give a command: {commands}")
        if not (found := INVALID_CHOICE.match(message)):
            return None
        word, choices = found[1], [c.strip("'") for c in found[2].split(", ")]
        at = list(self.argv).index(word) if word in self.argv else -1
        before = self.argv[at - 1] if at > 0 else ""
        if before.startswith("--") and before.split("=", 1)[0] not in self._option_string_actions:
            return f"unknown option {before}{elsewhere(None, [before], self)}"
        near = difflib.get_close_matches(word, choices, n=1, cutoff=NEAR_CHOICE)
        return f"no command {word!r}" + (f"; did you mean `{self.prog} {near[0]}`?" if near else
                                         f" (commands: {', '.join(choices)})")



INVALID_CHOICE = re.compile(r"argument (?:command|action): invalid choice: '(.*?)' \(choose from (.*)\)$", re.S)
"""argparse's message for a command (or a command's action: `cosci project lst`) it does not know (the choices quoted
before Python 3.12.8, bare after)."""


ELSEWHERE = {
    ("report", "--format"): "the page is `cosci report <id> --html`; Markdown, JSON Lines, BibTeX and RIS are "
                            "`cosci export <id> --format md|jsonl|bibtex|ris`",
    ("estimate", "--goal"): "`cosci estimate` prices a configuration, which the goal's words change little: give its "
                            "overrides, as `cosci estimate experiment=oncology models=opus`",
}
"""An option a fresh user gave to the wrong command, and where it is (fresh-user trial; design.md#cli)."""


def elsewhere(command: str | None, extra: Sequence[str], parser: argparse.ArgumentParser | None = None) -> str:
    """``"; <where the option is>"`` for an option of :data:`ELSEWHERE` among the unrecognized ``extra``, else
    ``"; did you mean --goal?"`` for the first unknown option that starts one of ``parser``'s options (``--goa``:
    abbreviations are not accepted, :class:`Parser`; ``--help`` is not offered for a prefix) or is one or two keystrokes
    off one, ``--help`` included (``--hepl``; difflib's ratio at least
    ``NEAR_CHOICE``, 0.75, as a preset's guess: design.md#cli), else ``""``."""
    flags = [e.split("=", 1)[0] for e in extra if e.startswith("--")]
    hint = next((f"; {hint}" for (cmd, flag), hint in ELSEWHERE.items() if cmd == command and flag in flags), "")
    if hint or parser is None:
        return hint
    every = sorted({o for a in parser._actions for o in a.option_strings if o.startswith("--")})
    options = [o for o in every if o != "--help"]  # every parser has it: a prefix ("--h") names the command's own
    for flag in flags:
        near = [o for o in options if o.startswith(flag)] or difflib.get_close_matches(flag, every, n=1,
                                                                                       cutoff=NEAR_CHOICE)
        if near:
            return f"; did you mean {' or '.join(near)}?"
    return ""


PATH_FLAGS = ("file", "out", "data_dir")
"""The options naming a file or a folder: given empty (``--file ""``, an unset shell variable) each is refused
rather than read as absent (a result recorded with no file, the report printed instead of written; design.md#cli)."""


def empty_paths(args: argparse.Namespace) -> None:
    """Raises CosciError (one line, nothing written) when a :data:`PATH_FLAGS` option was given empty."""
    for name in PATH_FLAGS:
        if isinstance(value := getattr(args, name, None), str) and not value.strip():
            raise CosciError(f"--{name.replace('_', '-')} is empty: give a path")


