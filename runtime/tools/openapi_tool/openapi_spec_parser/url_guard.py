"""Which hosts a REST tool may call by default: not loopback, private, link-local (cloud metadata),
reserved addresses, nor `*.internal` / `*.local` / `localhost` names, so a spec (or a model's
arguments) cannot point the tool at the machine's own network. Tools opt out with
`allow_private_network_access=True`."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

_BLOCKED_SUFFIXES = (".internal", ".local", ".localhost")


def _blocked_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


async def check_public_url(url: str) -> None:
    """Raises ValueError unless every address `url`'s host resolves to is a public one."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if not host:
        raise ValueError(f"URL is missing a hostname: {url}")
    if host == "localhost" or host.endswith(_BLOCKED_SUFFIXES):
        raise ValueError(f"Blocked host: {host}")
    try:
        addresses = [ipaddress.ip_address(host).compressed]
    except ValueError:
        try:
            infos = await asyncio.to_thread(socket.getaddrinfo, host, None)
        except socket.gaierror as e:
            raise ValueError(f"Cannot resolve host {host}: {e}") from e
        addresses = [info[4][0] for info in infos]
    if any(_blocked_address(a) for a in addresses):
        raise ValueError(f"Blocked host: {host}")
