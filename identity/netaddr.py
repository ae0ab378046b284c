"""IP allow-lists of API keys and OAuth clients: addresses and CIDR ranges, IPv4 and IPv6."""

from __future__ import annotations

import ipaddress


def network_errors(entries: list[str]) -> list[str]:
    bad = []
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            bad.append(entry)
    return bad


def ip_allowed(ip: str | None, allow_list: list[str]) -> bool:
    """An empty list allows every address; otherwise the address must fall in one entry."""
    if not allow_list:
        return True
    try:
        address = ipaddress.ip_address(ip or "")
    except ValueError:
        return False
    for entry in allow_list:
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except (ValueError, TypeError):
            continue
    return False


def is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True
