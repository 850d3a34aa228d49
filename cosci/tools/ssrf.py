"""The SSRF guard of ``web_fetch``: which URLs a model may make cosci fetch (design.md#routing).

A model chooses the URL, so a fetch must never reach this machine, its network, or a cloud metadata service.
:func:`check_url` allows only ``http``/``https`` URLs without credentials, resolves the host
(:func:`resolve_host`, replaced in tests) and refuses the URL when *any* address is not a public unicast
address: private, loopback, link-local, shared (CGNAT), reserved, unspecified, multicast, documentation ranges
and the cloud metadata endpoints (169.254.169.254, fd00:ec2::254, 100.100.100.200, 168.63.129.16 ...).
IPv6 addresses that embed an IPv4 address (IPv4-mapped, 6to4, Teredo, NAT64) are judged by that address.

The returned :class:`Target` pins the checked address: the request goes to the IP, with the original
``Host`` header and TLS server name, so a second DNS answer (DNS rebinding) cannot redirect it. Redirects are
not followed by the client; the caller checks every hop again.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass

import httpx

from cosci.errors import CosciError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

BLOCKED_HOSTNAMES = frozenset({
    "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback",
    "metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal",
})
"""Host names refused before any DNS lookup (their addresses are refused anyway)."""

METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean instance metadata
    "169.254.170.2",    # AWS ECS task metadata
    "169.254.169.253",  # AWS VPC DNS
    "fd00:ec2::254",    # AWS IMDS over IPv6
    "fd00:ec2::253",
    "100.100.100.200",  # Alibaba Cloud metadata
    "168.63.129.16",    # Azure wire server (a public address)
    "192.0.0.192",      # Oracle Cloud metadata
))
"""Cloud metadata endpoints, refused even where the address would otherwise pass."""

_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


class UnsafeUrl(CosciError):
    """A URL web_fetch refuses to fetch; ``str(err)`` says why in one line."""


@dataclass(frozen=True)
class Target:
    """A checked URL and the address to send it to.

    Attributes:
        url: the URL as given (fragment removed).
        pinned_url: the same URL with the host replaced by the checked IP address.
        host_header: the ``Host`` header to send (IDNA host, with the port when not the default).
        sni_hostname: the TLS server name (https only), else None.
        address: the checked IP address.
    """

    url: str
    pinned_url: str
    host_header: str
    sni_hostname: str | None
    address: str


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, Teredo client, NAT64), or None."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if any(ip in net for net in _NAT64):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_problem(address: str) -> str | None:
    """Why ``address`` must not be fetched (e.g. ``"loopback"``), or None for a public unicast address."""
    try:
        ip: IPAddress = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        inner = embedded_ipv4(ip)
        if inner is not None:
            problem = address_problem(str(inner))
            return f"{problem} (embedded in {ip})" if problem else None
        if ip.is_site_local:
            return "site-local"
    if ip in METADATA_ADDRESSES:
        return "a cloud metadata endpoint"
    for flag in ("loopback", "link_local", "multicast", "unspecified", "reserved", "private"):
        if getattr(ip, f"is_{flag}"):
            return flag.replace("_", "-")
    if not ip.is_global:
        return "not a public address"
    return None


async def resolve_host(host: str, port: int) -> list[str]:
    """All addresses ``host`` resolves to (an IP literal resolves to itself).

    Raises:
        UnsafeUrl: the name does not resolve.
    """
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise UnsafeUrl(f"cannot resolve host {host!r} ({exc})") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def parse_http_url(url: str) -> httpx.URL:
    """Syntactic checks: absolute http(s) URL with a host and no credentials. Raises: UnsafeUrl."""
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        raise UnsafeUrl(f"not a valid URL ({exc})") from None
    if parsed.scheme not in ("http", "https"):
        shown = parsed.scheme or "no scheme"
        raise UnsafeUrl(f"only http:// and https:// URLs can be fetched (got {shown})")
    if not parsed.host:
        raise UnsafeUrl("the URL has no host")
    if parsed.userinfo:
        raise UnsafeUrl("URLs with credentials (user:password@) are refused")
    return parsed.copy_with(fragment=None)


async def check_url(url: str) -> Target:
    """Check ``url`` and pin it to a checked address (see module docstring).

    Raises:
        UnsafeUrl: a refused scheme, host or address, or a host that does not resolve.
    """
    parsed = parse_http_url(url)
    host = parsed.host.rstrip(".").lower()
    if host in BLOCKED_HOSTNAMES or host.endswith(".localhost"):
        raise UnsafeUrl(f"host {host!r} is internal and refused")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    addresses = await resolve_host(parsed.raw_host.decode("ascii"), port)
    if not addresses:
        raise UnsafeUrl(f"host {host!r} has no address")
    for address in addresses:
        problem = address_problem(address)
        if problem:
            raise UnsafeUrl(f"{host} resolves to {address}, which is {problem}; "
                            "only public addresses are fetched")
    address = addresses[0]
    return Target(url=str(parsed), pinned_url=str(parsed.copy_with(host=address)),
                  host_header=parsed.netloc.decode("ascii"),
                  sni_hostname=parsed.raw_host.decode("ascii") if parsed.scheme == "https" else None,
                  address=address)
