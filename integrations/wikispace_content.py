"""What knowledge ingestion reads from one wiki space: its pages and their attachments, as the
`WikiClient` (integrations/wikispace.py) returns them, and how the v2 and v1 APIs' JSON becomes
those values. The two APIs name the same facts differently (v2 `version.createdAt`, `fileSize`;
v1 `version.when`, `extensions.fileSize`); everything past this module sees one shape."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

from django.utils.dateparse import parse_datetime

from integrations.wikispace_permissions import PageAccess, ancestors_from_v1, restriction_from_v1


@dataclass(frozen=True)
class WikiPage:
    id: str
    title: str
    space_key: str
    version: int  # the page's version number
    modified: datetime | None  # aware UTC, when that version was made
    web_path: str  # the platform's webui link path, relative to the instance's base URL
    access: PageAccess | None = None  # when the listing expanded ancestors and read restrictions


@dataclass(frozen=True)
class WikiAttachment:
    id: str
    page_id: str
    title: str  # the file name
    media_type: str  # "" when unknown
    size: int | None  # bytes
    version: int
    modified: datetime | None
    download_path: str  # relative to the client's base URL (the /wiki context included), or absolute
    web_path: str


# ---- pages
def page_from_v2(raw: dict, *, space_key: str) -> WikiPage:
    return _page(raw, space_key=space_key, modified=_version(raw).get("createdAt"))


def page_from_v1(raw: dict, *, space_key: str, emails: dict[str, str] | None = None) -> WikiPage:
    """A v1 content object; with `emails`, its access too when it expands `ancestors` (the users
    named in its read restriction noted there with their e-mail addresses)."""
    access = access_from_v1(raw, emails) if emails is not None else None
    return _page(raw, space_key=space_key, modified=_version(raw).get("when"), access=access)


def access_from_v1(raw: dict, emails: dict[str, str]) -> PageAccess | None:
    """The `ancestors` and `restrictions.read` expansions of a v1 content object; None without
    ancestors (not asked for)."""
    ancestors = ancestors_from_v1(raw)
    if ancestors is None:
        return None
    read = (raw.get("restrictions") or {}).get("read") if isinstance(raw.get("restrictions"), dict) else None
    return PageAccess(ancestors=ancestors, restriction=restriction_from_v1(read, emails))


def _page(raw: dict, *, space_key: str, modified: object, access: PageAccess | None = None) -> WikiPage:
    page_id = str(raw.get("id", ""))
    return WikiPage(
        id=page_id,
        title=str(raw.get("title") or ""),
        space_key=space_key,
        version=_version_number(raw),
        modified=moment(modified),
        web_path=_links(raw).get("webui") or f"/spaces/{space_key}/pages/{page_id}",
        access=access,
    )


def storage_body(raw: dict) -> str:
    """The storage-format XHTML of a page answer (the same place in v2 and v1)."""
    body = raw.get("body") or {}
    storage = body.get("storage") if isinstance(body, dict) else None
    value = storage.get("value") if isinstance(storage, dict) else None
    return value if isinstance(value, str) else ""


# ---- attachments
def attachment_from_v2(raw: dict, *, page: WikiPage) -> WikiAttachment:
    links = _links(raw)
    return _attachment(
        raw,
        page=page,
        media_type=raw.get("mediaType"),
        size=raw.get("fileSize"),
        modified=_version(raw).get("createdAt"),
        download=raw.get("downloadLink") or links.get("download"),
        webui=raw.get("webuiLink") or links.get("webui"),
    )


def attachment_from_v1(raw: dict, *, page: WikiPage) -> WikiAttachment:
    extensions = raw.get("extensions") if isinstance(raw.get("extensions"), dict) else {}
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    links = _links(raw)
    return _attachment(
        raw,
        page=page,
        media_type=extensions.get("mediaType") or metadata.get("mediaType"),
        size=extensions.get("fileSize"),
        modified=_version(raw).get("when"),
        download=links.get("download"),
        webui=links.get("webui"),
    )


def _attachment(
    raw: dict,
    *,
    page: WikiPage,
    media_type: object,
    size: object,
    modified: object,
    download: str | None,
    webui: str | None,
) -> WikiAttachment:
    attachment_id = str(raw.get("id", ""))
    title = str(raw.get("title") or "")
    return WikiAttachment(
        id=attachment_id,
        page_id=page.id,
        title=title,
        media_type=media_type if isinstance(media_type, str) else "",
        size=_count(size),
        version=_version_number(raw),
        modified=moment(modified),
        download_path=download or f"/download/attachments/{page.id}/{quote(title)}",
        web_path=webui
        or f"/spaces/{page.space_key}/pages/{page.id}?preview=/{page.id}/{attachment_id}/{quote(title)}",
    )


# ---- values
def moment(value: object) -> datetime | None:
    """An ISO 8601 time as an aware UTC datetime (naive ones are taken as UTC); None if unreadable."""
    if not isinstance(value, str):
        return None
    try:
        parsed = parse_datetime(value)
    except ValueError:  # well formed but impossible, such as a 31st of February
        return None
    if parsed is None:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _version(raw: dict) -> dict:
    version = raw.get("version")
    return version if isinstance(version, dict) else {}


def _version_number(raw: dict) -> int:
    return _count(_version(raw).get("number")) or 0


def _links(raw: dict) -> dict:
    links = raw.get("_links")
    return links if isinstance(links, dict) else {}


def _count(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None
