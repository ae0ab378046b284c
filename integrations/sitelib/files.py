"""A drive's files for ingestion: discovery (a walk through folders, or the drive's change feed) and
download.

- **Walk** (`drive_files`): the whole drive or the named folders, folder level by folder level, each
  level's folders read in JSON batches with every page followed. Files come out as each level is
  read (a generator), so a run can start before discovery ends.
- **Change feed** (`drive_delta`): what changed or was deleted since a token the caller keeps per
  drive. The platform leaves `parentReference.path` out of the feed and gives deleted items with
  little more than their id: match deletions by id, and changed files to folders by their web
  address (`item_within`). A token the platform no longer knows raises `ChangesExpired`: walk the
  drive again instead.
- **Permissions** (`items_permissions`): each item's effective permissions, 20 items to a JSON
  batch, the batches sent concurrently; a refusal or failure of one item's read is that item's
  answer, never the others' (see `integrations/sitelib/permissions.py` for what they admit).
- **Download** (`item_content`): the platform answers 302 to a short-lived download URL, which the
  guarded session follows (the guard checks every hop). Decide the size from the item first
  (`item_too_large`): an oversized item's content is never asked for. The stream is also cut at
  `max_bytes`, and the whole download, retries and redirect included, is bounded by `timeout_s`.

How a download fails, for the pipeline's failed-file types: `VendorTimeout` (no answer or no byte
in time: TIMEOUT); `VendorUnreachable` (refused, reset, dropped, TLS: NETWORK_ERROR); `VendorDenied`
(401/403: ACCESS_DENIED); `VendorNotFound` (404: the item is gone, treat it as deleted);
`ContentTooLarge` (FILE_TOO_LARGE); `VendorThrottled` / `VendorUnavailable` (429 past the time
allowed, 5xx); `OutboundRefused` (the guard refused a hop, such as a download URL on a private
address).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from urllib.parse import unquote, urlsplit

from integrations.base import VendorClient
from integrations.errors import (
    ChangesExpired,
    VendorError,
    VendorNotFound,
    VendorUnavailable,
)
from integrations.sitelib.batch import read_collections, read_each
from integrations.sitelib.models import Drive, DriveItem, Site, items_from
from integrations.sitelib.paths import (
    ITEM_QUERY,
    children_path,
    delta_path,
    item_at_path,
    item_path,
    with_query,
)


class DriveFiles(VendorClient):
    """The ingestion reads of the document-site client (`SitelibClient` authenticates them)."""

    # ---- discovery: the walk
    def files_of(self, sites: Iterable[Site], *, folders: Sequence[str] = ()) -> Iterator[DriveItem]:
        """The files of every drive of `sites` (see `drive_files`)."""
        for site in sites:
            for drive in site.drives:
                yield from self.drive_files(drive, folders=folders)

    def drive_files(self, drive: Drive, *, folders: Sequence[str] = ()) -> Iterator[DriveItem]:
        """Every file of `drive`; with `folders`, only the files under those of them that are in
        this drive (see `items_named`), so a drive holding none of them yields nothing. Each file
        comes once, even when named folders nest."""
        seen: set[str] = set()
        level = [] if folders else [children_path(drive.id)]
        for item in self.items_named(drive, folders):
            seen.add(item.id)
            if item.is_folder:
                level.append(item_path(drive.id, item.id) + "/children")
            elif item.is_file:
                yield item
        while level:
            answers = read_collections(self, [with_query(path, ITEM_QUERY) for path in level])
            level = []
            for item in (i for rows in answers for i in items_from(rows, drive_id=drive.id)):
                if item.id in seen or item.deleted:
                    continue
                seen.add(item.id)
                if item.is_folder:
                    level.append(item_path(drive.id, item.id) + "/children")
                elif item.is_file:
                    yield item

    def items_named(self, drive: Drive, paths: Sequence[str]) -> list[DriveItem]:
        """The items of `drive` at `paths`: server-relative paths (`/sites/hr/Shared Documents/
        Policies`, or the folder's web address; matched to the drive by its web address, in any
        case) or paths from the drive's root (`Policies/2024`, tried in every drive). Paths in
        other drives, and paths where nothing is, are left out."""
        relative = list(dict.fromkeys(p for p in (_in_drive(drive, path) for path in paths) if p is not None))
        found = self.fan_out(lambda path: self._item_at(drive.id, path), relative)
        return [item for item in found if item is not None]

    def _item_at(self, drive_id: str, path: str) -> DriveItem | None:
        try:
            raw = self.get_json(item_at_path(drive_id, path), params=ITEM_QUERY)
        except VendorNotFound:
            return None
        return DriveItem.from_graph(raw, drive_id=drive_id) if raw.get("id") else None

    # ---- discovery: the change feed
    def drive_delta(self, drive_id: str, *, token: str | None) -> tuple[list[DriveItem], str]:
        """The files changed and the items deleted since `token` (None: every file of the drive,
        read through the feed), and the token to keep for next time. Every page is read; an item
        the feed names twice comes once, as last named. Raises `ChangesExpired` when the platform
        no longer knows `token`, or when it is not a link of this API."""
        url = self._delta_start(drive_id, token)
        changed: dict[str, DriveItem] = {}
        while url:
            page = self.get_json(url)
            for item in items_from(_rows(page), drive_id=drive_id):
                changed.pop(item.id, None)
                changed[item.id] = item
            url = page.get("@odata.nextLink")
        items = [item for item in changed.values() if item.deleted or item.is_file]
        return items, self._delta_link(page)

    def drive_delta_token(self, drive_id: str) -> str:
        """A token for the drive as it is now, without reading its items (`token=latest`): take it
        before a full walk, and the next `drive_delta` reports what changed since."""
        return self._delta_link(self.get_json(delta_path(drive_id), params={"token": "latest"}))

    def _delta_start(self, drive_id: str, token: str | None) -> str:
        if token is None:
            return with_query(delta_path(drive_id), ITEM_QUERY)
        # The token is the feed's own link, followed with this client's bearer token: only ever
        # under this client's API root.
        if not token.startswith(self.base_url + "/"):
            raise ChangesExpired("The change token does not belong to this platform.", platform=self.platform)
        return token

    def _delta_link(self, page: dict) -> str:
        link = page.get("@odata.deltaLink")
        if not isinstance(link, str) or not link:
            raise VendorUnavailable(
                f"The {self.platform} platform ended its change feed without a delta link.", **self._p
            )
        return link

    # ---- permissions
    def items_permissions(self, items: Sequence[DriveItem]) -> list[list[dict] | VendorError]:
        """Each item's permissions as the platform lists them (every page), in the order of `items`,
        or the `VendorError` its read ended with (403 denied, 404 gone, 429 throttled past the
        retries, 5xx unavailable)."""
        return read_each(self, [item_path(item.drive_id, item.id) + "/permissions" for item in items])

    # ---- download
    def item_content(self, drive_id: str, item_id: str, *, max_bytes: int, timeout_s: float) -> bytes:
        """The item's content, at most `max_bytes` (else `ContentTooLarge`), all of it within
        `timeout_s` seconds (else `VendorTimeout`); see the module's notes for every failure."""
        return self.content_get(
            item_path(drive_id, item_id) + "/content", max_bytes=max_bytes, timeout_s=timeout_s
        )


def item_within(item: DriveItem, drive: Drive, folders: Sequence[str]) -> bool:
    """Whether a file of `drive` lies under one of `folders` (named as `drive_files` takes them),
    judged by its web address: what the change feed gives. No folders: the whole drive."""
    if not folders:
        return True
    path = item.server_path.lower()
    base = drive.server_path.rstrip("/")
    for folder in folders:
        relative = _in_drive(drive, folder)
        if relative is None:
            continue
        prefix = f"{base}/{relative}".rstrip("/").lower()
        if path == prefix or path.startswith(prefix + "/"):
            return True
    return False


def _in_drive(drive: Drive, path: str) -> str | None:
    """`path` from the drive's root ("" for the root), or None when it names a place elsewhere. A
    web address or a percent-encoded path, as copied from a browser, is taken as its path."""
    path = path.strip()
    if path.startswith(("https://", "http://")):
        path = urlsplit(path).path
    path = unquote(path)
    if not path.startswith("/"):
        return path.strip("/")
    base = drive.server_path.rstrip("/").lower()
    wanted = path.rstrip("/")
    if wanted.lower() == base:
        return ""
    if wanted.lower().startswith(base + "/"):
        return wanted[len(base) + 1 :].strip("/")
    return None


def _rows(page: dict) -> list[dict]:
    return [row for row in page.get("value") or [] if isinstance(row, dict)]
