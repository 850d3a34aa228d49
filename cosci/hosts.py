"""Which hosts are this machine: the web UI's bind rule and the launch's local-server check read the same test."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost`` (nothing else on the network reaches it)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
