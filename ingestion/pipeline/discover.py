"""Pipeline stage "discover": the files a run ingests and the items that left the source.

The configuration's scope picks the sites (all the app sees when it names none), their sub-sites,
drives and folders, with the tenant's block and allow lists when the configuration asks for them
(`content_restriction`). Per drive:

- a full run walks the drive (or its scoped folders), after taking the drive's change token;
- an incremental run reads the change feed from the token the last finished run kept: changed
  files (within the scoped folders, matched by web address) and deleted items. A drive without a
  token, or whose token the platform forgot, is walked, keeping only files changed since the
  window's start.

The new tokens are kept only when the run ends well (`ingestion.services.runs.sync_run_finish`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from integrations.errors import ChangesExpired
from integrations.sitelib import Drive, DriveItem, Site, SitelibClient, item_within
from knowledge.selectors import source_rules_get
from knowledge.services import SitelibQuery


@dataclass
class Discovery:
    files: list[DriveItem] = field(default_factory=list)
    deleted: list[DriveItem] = field(default_factory=list)
    delta_tokens: dict[str, str] = field(default_factory=dict)
    walked_drives: list[str] = field(default_factory=list)  # read whole (not through the feed)


def scope_query(*, scope: dict, restriction: dict) -> SitelibQuery:
    return SitelibQuery(
        site_urls=list(scope.get("site_urls") or []),
        sub_sites=list(scope.get("sub_sites") or []),
        drives=list(scope.get("drives") or []),
        folders=list(scope.get("folders") or []),
        audience=list(restriction.get("audience") or []),
        blacklisted=bool(restriction.get("blacklisted")),
        source_restriction=bool(restriction.get("source_restriction")),
    )


def discover(
    *,
    client: SitelibClient,
    tenant,
    query: SitelibQuery,
    tokens: dict[str, str],
    incremental: bool,
    since: datetime | None,
) -> Discovery:
    found = Discovery()
    for drive in _drives(client, tenant, query):
        token = tokens.get(drive.id) if incremental else None
        if token and _read_changes(client, drive, token, query.folders, found):
            continue
        found.delta_tokens[drive.id] = client.drive_delta_token(drive.id)
        found.walked_drives.append(drive.id)
        for item in client.drive_files(drive, folders=_folders(query.folders)):
            if not incremental or since is None or item.last_modified is None or item.last_modified >= since:
                found.files.append(item)
    return found


def _drives(client: SitelibClient, tenant, query: SitelibQuery) -> list[Drive]:
    rules = source_rules_get(
        tenant=tenant,
        audience=query.audience,
        blacklisted=query.blacklisted,
        source_restriction=query.source_restriction,
    )
    top = [client.site_by_url(url) for url in query.site_urls] if query.site_urls else client.sites_all()
    sites: list[Site] = client.site_tree(
        [site for site in top if not rules.site_blocked(site.url)],
        sub_site_kept=lambda site: query.sub_site_wanted(site) and not rules.site_blocked(site.url),
        drive_kept=lambda site, drive: query.drive_wanted(drive) and rules.drive_visible(site.url, drive.id),
    )
    drives: dict[str, Drive] = {}
    for site in sites:
        for drive in site.drives:
            drives.setdefault(drive.id, drive)
    return list(drives.values())


def _folders(folders: list[str]) -> list[str]:
    """`*` (every root folder) is the whole drive."""
    return [] if "*" in folders else folders


def _read_changes(
    client: SitelibClient, drive: Drive, token: str, folders: list[str], found: Discovery
) -> bool:
    """The drive's changes since `token` into `found`; False when the platform forgot the token."""
    try:
        items, new_token = client.drive_delta(drive.id, token=token)
    except ChangesExpired:
        return False
    for item in items:
        if item.deleted:
            found.deleted.append(item)
        elif item_within(item, drive, _folders(folders)):
            found.files.append(item)
    found.delta_tokens[drive.id] = new_token
    return True
