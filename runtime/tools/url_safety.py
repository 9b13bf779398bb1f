"""Whether a URL a model supplied may be opened: http(s) only, and (unless allowed) never a
loopback, private, link-local or metadata host, by name or by what the name resolves to."""

from __future__ import annotations

import ipaddress
import socket
from typing import Union
from urllib.parse import urlparse

Address = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]

_SCHEMES = frozenset({"http", "https"})
_BLOCKED_NAMES = frozenset({"localhost", "metadata", "metadata.goog"})
_BLOCKED_SUFFIXES = (".localhost", ".local", ".internal", ".metadata.goog")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def url_host(url: str) -> str:
    """The URL's host name; ValueError unless it is an http(s) URL with a host and a valid port."""
    if not isinstance(url, str):
        raise ValueError("url is not a string")
    parsed = urlparse(url)
    if parsed.scheme.lower() not in _SCHEMES:
        raise ValueError(f"Unsupported url scheme: {url}")
    if not parsed.hostname:
        raise ValueError(f"URL is missing a hostname: {url}")
    if "\\" in parsed.netloc:
        raise ValueError("backslash in hostname")
    try:
        parsed.port
    except ValueError as exc:
        raise ValueError(f"Invalid url port: {url}") from exc
    return parsed.hostname


def is_blocked_name(hostname: str) -> bool:
    """Names of loopback or internal infrastructure (checked without resolving)."""
    name = hostname.rstrip(".").lower()
    return name in _BLOCKED_NAMES or name.endswith(_BLOCKED_SUFFIXES)


def _embedded_ipv4(address: Address) -> Union[ipaddress.IPv4Address, None]:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, NAT64, compatible): its reach is that one's."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    packed = int(address)
    if packed >> 32 == 0 and (packed & 0xFFFFFFFF) not in (0, 1):
        return ipaddress.IPv4Address(packed & 0xFFFFFFFF)
    return None


def is_blocked_address(address: Address) -> bool:
    embedded = _embedded_ipv4(address)
    return not address.is_global or (embedded is not None and not embedded.is_global)


def resolve_public(hostname: str) -> tuple[Address, ...]:
    """The host's addresses; ValueError if it does not resolve or any of them is not public."""
    try:
        addresses: tuple[Address, ...] = (ipaddress.ip_address(hostname),)
    except ValueError:
        try:
            infos = socket.getaddrinfo(hostname, None, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
        except (socket.gaierror, UnicodeError) as exc:
            raise ValueError(f"Unable to resolve host: {hostname}") from exc
        addresses = tuple(
            dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos if info[0] in (socket.AF_INET, socket.AF_INET6))
        )
        if not addresses:
            raise ValueError(f"Unable to resolve host: {hostname}")
    if any(is_blocked_address(a) for a in addresses):
        raise ValueError(f"Blocked host: {hostname}")
    return addresses
