"""What the document-site platform's API describes (sites, drives, folders, drive items), read from
its JSON, and the credentials of an app registration."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import unquote, urlsplit

PLATFORM = "sitelib"
_GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_DOMAIN = re.compile(r"^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$", re.I)
_SHA1_HEX = re.compile(r"^[0-9a-f]{40}$", re.I)


def cloud_tid_valid(value: str) -> bool:
    """A directory tenant is named by its GUID or one of its domain names."""
    return bool(_GUID.match(value) or _DOMAIN.match(value))


def thumbprint_valid(value: str) -> bool:
    """A certificate thumbprint as the platform shows it: SHA-1, 40 hex digits (colons allowed)."""
    return bool(_SHA1_HEX.match(value.replace(":", "")))


@dataclass(frozen=True)
class SitelibCredentials:
    cloud_tid: str
    client_id: str
    client_secret: str = field(default="", repr=False)
    thumbprint: str = ""
    private_key: str = field(default="", repr=False)

    @property
    def uses_certificate(self) -> bool:
        return bool(self.thumbprint and self.private_key)


@dataclass
class Folder:
    id: str
    name: str
    path: str
    web_url: str
    child_count: int


@dataclass
class Drive:
    id: str
    name: str
    drive_type: str
    web_url: str = ""
    folders: list[Folder] | None = None

    @property
    def server_path(self) -> str:
        """The drive's path on its host, decoded (`/sites/marketing/Shared Documents`)."""
        return server_path(self.web_url)


@dataclass
class Site:
    id: str
    name: str
    url: str
    drives: list[Drive] = field(default_factory=list)
    parent_id: str | None = None  # set on sub-sites


@dataclass(frozen=True)
class DriveItem:
    """A file or folder of a drive, or what the change feed says of a deleted one (then most fields
    are empty: the platform gives little more than the id; track deleted items by id)."""

    id: str
    drive_id: str
    name: str = ""
    web_url: str = ""
    size: int = 0
    mime_type: str = ""
    last_modified: datetime | None = None  # aware
    etag: str = ""  # changes with any change to the item
    ctag: str = ""  # changes with its content (the change feed may leave it out)
    parent_id: str = ""
    parent_path: str = ""  # in the drive, decoded ("/" is the root; "" when not given)
    hashes: dict[str, str] = field(default_factory=dict)  # file.hashes: quickXorHash, sha256Hash...
    deleted: bool = False
    is_folder: bool = False
    is_file: bool = False

    @property
    def server_path(self) -> str:
        """The item's path on its host, decoded: a folder's is a prefix of everything under it."""
        return server_path(self.web_url)

    @classmethod
    def from_graph(cls, raw: dict, *, drive_id: str) -> DriveItem:
        parent = raw.get("parentReference") if isinstance(raw.get("parentReference"), dict) else {}
        file = raw.get("file") if isinstance(raw.get("file"), dict) else {}
        hashes = file.get("hashes") if isinstance(file.get("hashes"), dict) else {}
        size = raw.get("size")
        return cls(
            id=str(raw["id"]),
            drive_id=str(parent.get("driveId") or drive_id),
            name=str(raw.get("name") or ""),
            web_url=str(raw.get("webUrl") or ""),
            size=size if isinstance(size, int) and size >= 0 else 0,
            mime_type=str(file.get("mimeType") or ""),
            last_modified=_moment(raw.get("lastModifiedDateTime")),
            etag=str(raw.get("eTag") or ""),
            ctag=str(raw.get("cTag") or ""),
            parent_id=str(parent.get("id") or ""),
            parent_path=_path_in_drive(parent.get("path")),
            hashes={str(k): str(v) for k, v in hashes.items()},
            deleted=raw.get("deleted") is not None,
            is_folder=raw.get("folder") is not None,
            is_file=raw.get("file") is not None,
        )


def item_too_large(item: DriveItem, max_bytes: int) -> bool:
    """Whether the platform's own size of `item` is over `max_bytes`: decide this before asking for
    the content (an item whose size the platform did not give is left to the download's guard)."""
    return item.size > max_bytes


def drive_named(drive: Drive, names: Sequence[str]) -> bool:
    """Whether `names` name the drive, by id or by name (any case); no names name every drive."""
    if not names:
        return True
    return drive.id in names or drive.name.lower() in {n.strip().lower() for n in names}


def server_path(web_url: str) -> str:
    return unquote(urlsplit(web_url).path) if web_url else ""


def drives_from(items: Iterable[dict]) -> list[Drive]:
    return [
        Drive(
            id=d["id"], name=d.get("name", ""), drive_type=d.get("driveType", ""), web_url=d.get("webUrl", "")
        )
        for d in items
        if d.get("id")
    ]


def folders_from(items: Iterable[dict]) -> list[Folder]:
    return [_folder(item) for item in items if "folder" in item and item.get("id")]


def site_from(raw: dict, *, parent_id: str | None = None) -> Site:
    return Site(
        id=str(raw.get("id", "")),
        name=str(raw.get("displayName") or raw.get("name") or ""),
        url=str(raw.get("webUrl", "")),
        parent_id=parent_id,
    )


def items_from(items: Iterable[dict], *, drive_id: str) -> list[DriveItem]:
    return [DriveItem.from_graph(item, drive_id=drive_id) for item in items if item.get("id")]


def _folder(raw: dict) -> Folder:
    web_url = str(raw.get("webUrl", ""))
    return Folder(
        id=str(raw["id"]),
        name=str(raw.get("name", "")),
        path=server_path(web_url) if web_url else "/" + str(raw.get("name", "")),
        web_url=web_url,
        child_count=int((raw.get("folder") or {}).get("childCount") or 0),
    )


def _moment(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _path_in_drive(value: object) -> str:
    """An item reference's API path (`/drives/{id}/root:/Shared%20Folder`) as a decoded path in the
    drive (`/Shared Folder`): everything up to the first colon names the drive."""
    if not isinstance(value, str) or ":" not in value:
        return ""
    return unquote(value.partition(":")[2]) or "/"
