"""Source principals (DESIGN section 19): who may read an item at its source, and who a caller is
there, in one vocabulary that documents, callers and realms share.

- `everyone`: anyone of the tenant's directory;
- `user:<email>`: one person, by e-mail address or user principal name;
- `group:<platform>:<id>`: a group of a platform (`sitelib`, `wikispace`, `itsmplatform`) by the
  platform's id (a wiki group's name where the wiki has no ids).

Principals compare without regard to case: `principal` folds them.
"""

from __future__ import annotations

from collections.abc import Iterable

EVERYONE = "everyone"
PLATFORMS = ("sitelib", "wikispace", "itsmplatform")
MAX_LENGTH = 512


def principal(value: str) -> str:
    """`value` as a source principal in folded case; ValueError for anything of another form."""
    text = value.strip().casefold() if isinstance(value, str) else ""
    if text == EVERYONE:
        return text
    kind, _, rest = text.partition(":")
    if len(text) > MAX_LENGTH or any(ord(ch) < 32 for ch in text):
        raise ValueError(f"A source principal has at most {MAX_LENGTH} characters, no control characters.")
    if kind == "user" and "@" in rest.strip("@"):
        return text
    platform, _, group_id = rest.partition(":")
    if kind == "group" and platform in PLATFORMS and group_id.strip():
        return text
    raise ValueError(
        f"{value!r} is not a source principal: everyone, user:<email> or group:<platform>:<id> "
        f"(platform one of {', '.join(PLATFORMS)})."
    )


def principals(values: Iterable[str]) -> tuple[str, ...]:
    """Source principals, folded, once each, sorted; ValueError for one of another form."""
    if isinstance(values, str):
        raise ValueError("Source principals are a list, not one string.")
    return tuple(sorted({principal(value) for value in values}))


def user_principal(email: str) -> str | None:
    """The principal of the person with this e-mail address (None for a blank or malformed one)."""
    try:
        return principal(f"user:{email}")
    except ValueError:
        return None


def group_principal(platform: str, group_id: str) -> str:
    return principal(f"group:{platform}:{group_id}")
