"""The document-site platform's side of a run: its files, through the app registration that the
configuration's vault credential holds.

The configuration's scope picks the sites (all the app sees when it names none), their sub-sites,
drives and folders, with the tenant's block and allow lists when the configuration asks for them
(`content_restriction`). Per drive:

- a full run walks the drive (or its scoped folders), after taking the drive's change token;
- an incremental run reads the change feed from the token the last finished run kept: changed
  files (within the scoped folders, matched by web address) and deleted items. A drive without a
  token, or whose token the platform forgot, is walked, keeping only files changed since the
  window's start.

A full run's walk sees every file of the drives it walked: their indexed documents that it did not
see are gone. The new tokens are kept only when the run ends well
(`ingestion.services.runs.sync_run_finish`).

Every file found carries its readers (DESIGN §19), read in the same discovery from its permissions
in JSON batches of 20 (`integrations/sitelib/permissions.py` says what each permission admits); a
file whose permissions the platform would not list has none (`readers` None) and says why.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from ingestion.models import SyncConfiguration
from ingestion.pipeline.failures import RunFailed
from ingestion.pipeline.sources.base import Content, Discovery, SourceItem
from ingestion.pipeline.sources.vault import credential_of
from integrations.errors import ChangesExpired, VendorError
from integrations.sitelib.client import SitelibClient
from integrations.sitelib.files import item_within
from integrations.sitelib.models import Drive, DriveItem, Site, SitelibCredentials
from integrations.sitelib.permissions import group_principal, item_readers
from knowledge.selectors import source_rules_get
from knowledge.services import SitelibQuery

PLATFORM = "sitelib"
CONTENT_TYPE = "sitelib_attachment"  # a drive's files are attachments (DESIGN section 10)


def source_item(item: DriveItem, permissions: list[dict] | VendorError | None = None) -> SourceItem:
    """A drive item as the pipeline sees it (item ids are unique within their drive), with the
    readers its `permissions` admit, or none and the reason when they could not be read."""
    readers: tuple[str, ...] | None = ()
    readers_error = ""
    if isinstance(permissions, VendorError):
        readers = None
        readers_error = f"The platform would not list the file's permissions: {permissions.message}"
    elif permissions is not None:
        readers = item_readers(permissions)
    return SourceItem(
        key=f"{item.drive_id}/{item.id}",
        name=item.name,
        web_url=item.web_url,
        content_type=CONTENT_TYPE,
        version=item.ctag,
        file_name=item.name,
        mime_type=item.mime_type,
        size=item.size,
        modified=item.last_modified,
        metadata={
            "drive_id": item.drive_id,
            "item_id": item.id,
            "ctag": item.ctag,
            "etag": item.etag,
            "size": item.size,
            "mime_type": item.mime_type,
            "last_modified": item.last_modified.isoformat() if item.last_modified else None,
        },
        readers=readers,
        readers_error=readers_error,
    )


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


class SitelibSource:
    platform = PLATFORM

    def __init__(self, configuration: SyncConfiguration) -> None:
        self.tenant = configuration.tenant
        self.query = scope_query(
            scope=configuration.scope, restriction=configuration.content_restriction or {}
        )
        self.client = SitelibClient(
            graph_url=settings.SITELIB_GRAPH_URL,
            login_url=settings.SITELIB_LOGIN_URL,
            credentials=_credentials(configuration),
        )

    def close(self) -> None:
        self.client.close()

    def discover(self, *, incremental: bool, since: datetime | None, tokens: dict[str, str]) -> Discovery:
        found = Discovery()
        walked: set[str] = set()
        for drive in self._drives():
            token = tokens.get(drive.id) if incremental else None
            if token and self._read_changes(drive, token, found):
                continue
            found.delta_tokens[drive.id] = self.client.drive_delta_token(drive.id)
            walked.add(drive.id)
            walk = self.client.drive_files(drive, folders=_folders(self.query.folders))
            files = [item for item in walk if not incremental or _changed_since(item, since)]
            found.items.extend(self._with_readers(files))
        if not incremental:
            found.covers = lambda document: (document.metadata or {}).get("drive_id") in walked
        return found

    def content(self, item: SourceItem, *, max_bytes: int, timeout_s: float) -> Content:
        data = self.client.item_content(
            item.metadata["drive_id"], item.metadata["item_id"], max_bytes=max_bytes, timeout_s=timeout_s
        )
        return Content(data=data, file_name=item.file_name, mime_type=item.mime_type)

    def member_groups(self, email: str) -> set[str]:
        """The directory groups (`group:sitelib:<id>`) of the person at `email`, nested ones
        included; none when the directory does not know them."""
        return {group_principal(group_id) for group_id in self.client.member_group_ids(email)} - {None}

    def _with_readers(self, files: list[DriveItem]) -> list[SourceItem]:
        return [
            source_item(item, permissions)
            for item, permissions in zip(files, self.client.items_permissions(files), strict=True)
        ]

    def _drives(self) -> list[Drive]:
        query, client = self.query, self.client
        rules = source_rules_get(
            tenant=self.tenant,
            audience=query.audience,
            blacklisted=query.blacklisted,
            source_restriction=query.source_restriction,
        )
        top = [client.site_by_url(url) for url in query.site_urls] if query.site_urls else client.sites_all()
        sites: list[Site] = client.site_tree(
            [site for site in top if not rules.site_blocked(site.url)],
            sub_site_kept=lambda site: query.sub_site_wanted(site) and not rules.site_blocked(site.url),
            drive_kept=lambda site, drive: (
                query.drive_wanted(drive) and rules.drive_visible(site.url, drive.id)
            ),
        )
        drives: dict[str, Drive] = {}
        for site in sites:
            for drive in site.drives:
                drives.setdefault(drive.id, drive)
        return list(drives.values())

    def _read_changes(self, drive: Drive, token: str, found: Discovery) -> bool:
        """The drive's changes since `token` into `found`; False when the platform forgot the token."""
        try:
            items, new_token = self.client.drive_delta(drive.id, token=token)
        except ChangesExpired:
            return False
        found.deleted.extend(source_item(item) for item in items if item.deleted)
        folders = _folders(self.query.folders)
        files = [item for item in items if not item.deleted and item_within(item, drive, folders)]
        found.items.extend(self._with_readers(files))
        found.delta_tokens[drive.id] = new_token
        return True


def _changed_since(item: DriveItem, since: datetime | None) -> bool:
    return since is None or item.last_modified is None or item.last_modified >= since


def _folders(folders: list[str]) -> list[str]:
    """`*` (every root folder) is the whole drive."""
    return [] if "*" in folders else folders


def _credentials(configuration: SyncConfiguration) -> SitelibCredentials:
    """The app registration that the credential `integration_id` holds: `metadata.cloud_tid`,
    `metadata.client_id` (or `clientId`), and the secret `client_secret` (or `clientSecret`), or the
    certificate's `thumbprint` (metadata or secret) and private `key` (secret)."""
    credential = credential_of(configuration)
    metadata, secrets = credential.metadata, credential.secrets
    cloud_tid = str(metadata.get("cloud_tid") or "")
    client_id = str(metadata.get("client_id") or metadata.get("clientId") or secrets.get("clientId") or "")
    if not cloud_tid or not client_id:
        raise RunFailed(
            f"The vault credential '{configuration.integration_id}' lacks metadata.cloud_tid or "
            "metadata.client_id."
        )
    return SitelibCredentials(
        cloud_tid=cloud_tid,
        client_id=client_id,
        client_secret=secrets.get("client_secret") or secrets.get("clientSecret") or "",
        thumbprint=secrets.get("thumbprint") or str(metadata.get("thumbprint") or ""),
        private_key=secrets.get("key", ""),
    )
