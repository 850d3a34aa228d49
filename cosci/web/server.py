"""``cosci serve``: the web UI served by uvicorn on one address (docs/web.md, design.md#web).

The bind rule is checked before anything is imported or bound (:func:`cosci.web.security.check_bind`): off the
loopback address a token is required. The address to open is printed once (with the token, when there is one);
uvicorn's access log stays off (the token would be written in it).
"""

from __future__ import annotations

import sys
from pathlib import Path

from cosci.web.security import check_bind

DEFAULT_PORT = 7878
"""The specification's port (design.md#web)."""


def address(host: str, port: int, token: str | None) -> str:
    """The address a browser opens (an IPv6 host in brackets; ``?token=`` when the server has one); a wildcard
    bind (``0.0.0.0``, ``::``), which no browser opens, is shown by the machine's name."""
    import socket

    from cosci.web.security import WILDCARD

    shown = socket.getfqdn() if host in WILDCARD else f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def serve(root: Path, *, host: str = "127.0.0.1", port: int = DEFAULT_PORT, token: str | None = None) -> None:
    """Serve the web UI over the data folder ``root`` until interrupted.

    Raises:
        CosciError: a host off this machine without a token, a short token, a port out of range (one line, exit 2);
            the address already in use.
    """
    from cosci.errors import CosciError

    check_bind(host, token)
    if not 0 < port < 65536:
        raise CosciError(f"--port {port}: give a TCP port, 1-65535")
    import socket

    import uvicorn

    from cosci.web.app import create_app

    app = create_app(root, token, host=host, port=port)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        raise CosciError(f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc}); "
                         "choose another --port") from None
    print(f"cosci serve: {address(host, port, token)} (data folder {root}; Ctrl-C stops)", file=sys.stderr,
          flush=True)
    server.run(sockets=[sock])
