"""IP allow-lists of API keys and OAuth clients: addresses and CIDR ranges, IPv4 and IPv6."""

from __future__ import annotations

import ipaddress

from core.api.fields import matches_pattern

# An allow-list entry as one pattern, the one the API schema states: an IPv4 address in dotted
# decimal (no leading zeros) or an IPv6 address in hex groups (`::` allowed, no embedded IPv4 or
# zone), each with an optional prefix length (/0-32, /0-128). Host bits may be set (10.1.2.3/8 is
# 10.0.0.0/8).
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = f"{_OCTET}(?:\\.{_OCTET}){{3}}"
_G = "[0-9A-Fa-f]{1,4}"
_IPV6 = "|".join(
    [
        f"(?:{_G}:){{7}}{_G}",
        f"(?:{_G}:){{1,7}}:",
        f"(?:{_G}:){{1,6}}:{_G}",
        f"(?:{_G}:){{1,5}}(?::{_G}){{1,2}}",
        f"(?:{_G}:){{1,4}}(?::{_G}){{1,3}}",
        f"(?:{_G}:){{1,3}}(?::{_G}){{1,4}}",
        f"(?:{_G}:){{1,2}}(?::{_G}){{1,5}}",
        f"{_G}:(?::{_G}){{1,6}}",
        f":(?:(?::{_G}){{1,7}}|:)",
    ]
)
NETWORK_PATTERN = (
    f"^(?:{_IPV4}(?:/(?:3[0-2]|[12]?[0-9]))?|(?:{_IPV6})(?:/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9]))?)$"
)


def network_errors(entries: list[str]) -> list[str]:
    bad = []
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            bad.append(entry)
            continue
        if not matches_pattern(NETWORK_PATTERN, entry):
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
