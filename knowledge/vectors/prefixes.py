"""Which addresses a URL prefix covers: the one rule that deleting a source's documents and the
tenant's blocked URL prefixes share (DESIGN section 15, a source URL is a prefix of what is under it).

`https://x/a` covers `https://x/a` itself and what continues it after a boundary, `/` (beneath it
in the path), `?` (a view of it: `?preview=1`) or `#` (a part of it: `#att-1`); never
`https://x/ab` or `https://x/a-archive`. A trailing `/` of the prefix is ignored, and addresses
compare in folded case (hosts and the platforms' paths are case-insensitive).
"""

from __future__ import annotations

from urllib.parse import urlsplit

BOUNDARIES = ("/", "?", "#")


def url_key(url: str) -> str:
    """An address in the form prefixes are compared with (a document's `source_url_key`)."""
    return url.casefold()


def url_prefix(prefix: str) -> tuple[str, tuple[str, ...]]:
    """The addresses `prefix` covers, in `url_key` form: (the prefix itself, the beginnings of
    the addresses beneath it). An address is covered when it equals the first or starts with
    one of the second. ValueError when the prefix is not an absolute http(s) URL."""
    base = prefix.strip().rstrip("/")
    try:
        parts = urlsplit(base)
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError("A source URL prefix is an absolute http(s) URL.")
    key = url_key(base)
    return key, tuple(key + boundary for boundary in BOUNDARIES)
