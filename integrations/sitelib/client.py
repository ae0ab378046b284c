"""The document-site API client: sites, sub-sites, drives and folders (the listing), a drive's
files (ingestion, `integrations/sitelib/files.py`) and the tool hub's file reads, every
`@odata.nextLink` followed; reads of many objects go in JSON batches (`integrations/sitelib/batch.py`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from urllib.parse import quote, urlsplit

import requests

from integrations.errors import ChangesExpired, VendorError, VendorNotFound
from integrations.sitelib.auth import app_token
from integrations.sitelib.batch import read_collection, read_collections
from integrations.sitelib.files import DriveFiles
from integrations.sitelib.models import (
    PLATFORM,
    Drive,
    Folder,
    Site,
    SitelibCredentials,
    drives_from,
    folders_from,
    site_from,
)
from integrations.sitelib.paths import (
    CONFLICT,
    DRIVE_QUERY,
    FOLDER_QUERY,
    ITEM_FIELDS,
    MEMBER_QUERY,
    children_path,
    drives_path,
    folder_path,
    invite_path,
    item_path,
    segment,
    sub_sites_path,
    transitive_groups_path,
    upload_path,
    with_query,
)
from integrations.sitelib.permissions import member_group_ids


class SitelibClient(DriveFiles):
    platform = PLATFORM

    def __init__(
        self,
        *,
        graph_url: str,
        login_url: str,
        credentials: SitelibCredentials,
        max_workers: int | None = None,
        access_token: str | None = None,
        session_options: dict | None = None,
    ) -> None:
        super().__init__(base_url=graph_url, session_options=session_options)
        self.login_url = login_url.rstrip("/")
        self.credentials = credentials
        if max_workers is not None:
            self.max_workers = max_workers
        # A token the caller already holds (the tool hub's, kept fresh by the vault) skips msal.
        self._token: str | None = access_token or None
        self._token_lock = threading.Lock()

    # ---- authentication
    def token(self) -> str:
        with self._token_lock:
            if self._token is None:
                self._token = app_token(
                    graph_url=self.base_url, login_url=self.login_url, credentials=self.credentials
                )
            return self._token

    # ---- calls
    def request(self, method: str, path_or_url: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"Bearer {self.token()}", "Accept": "application/json"}
        kwargs["headers"] = {**headers, **(kwargs.get("headers") or {})}
        return super().request(method, path_or_url, **kwargs)

    def vendor_error_text(self, response: requests.Response) -> tuple[str | None, str | None]:
        try:
            error = response.json().get("error") or {}
        except (ValueError, AttributeError):
            return None, None
        if not isinstance(error, dict):
            return None, None
        return error.get("code"), error.get("message")

    def error_for(self, response: requests.Response) -> VendorError:
        if response.status_code == 410:  # the change feed's "resync required"
            code, _ = self.vendor_error_text(response)
            return ChangesExpired(
                "The platform no longer knows this change token; read the drive again.",
                status=410,
                vendor_code=code,
                platform=self.platform,
            )
        return super().error_for(response)

    # ---- resources
    def sites_all(self) -> list[Site]:
        return [site_from(raw) for raw in read_collection(self, "/sites", {"search": "*"})]

    def site_by_url(self, url: str) -> Site:
        parts = urlsplit(url)
        path = parts.path.rstrip("/")
        address = f"/sites/{parts.hostname}" + (f":{quote(path, safe='/')}" if path else "")
        return site_from(self.get_json(address))

    def sub_sites(self, site: Site) -> list[Site]:
        return [site_from(raw, parent_id=site.id) for raw in read_collection(self, sub_sites_path(site.id))]

    def drives(self, site_id: str) -> list[Drive]:
        return drives_from(read_collection(self, drives_path(site_id), DRIVE_QUERY))

    def folders(self, drive_id: str) -> list[Folder]:
        """The folders at the root of a drive."""
        return folders_from(read_collection(self, children_path(drive_id), FOLDER_QUERY))

    # ---- the same reads for many objects at once, in JSON batches
    def sub_sites_and_drives(self, sites: list[Site]) -> tuple[list[list[Site]], list[list[Drive]]]:
        """Each site's sub-sites and its drives, all asked in one round of batches (neither read
        depends on the other); sub-site reads come first, so their failures are raised first."""
        urls = [sub_sites_path(s.id) for s in sites]
        urls += [with_query(drives_path(s.id), DRIVE_QUERY) for s in sites]
        answers = read_collections(self, urls)
        children = [
            [site_from(raw, parent_id=site.id) for raw in rows]
            for site, rows in zip(sites, answers[: len(sites)], strict=True)
        ]
        return children, [drives_from(rows) for rows in answers[len(sites) :]]

    def drives_of(self, site_ids: list[str]) -> list[list[Drive]]:
        answers = read_collections(self, [with_query(drives_path(i), DRIVE_QUERY) for i in site_ids])
        return [drives_from(rows) for rows in answers]

    def folders_of(self, drive_ids: list[str]) -> list[list[Folder]]:
        """The folders at the root of each drive."""
        answers = read_collections(self, [with_query(children_path(i), FOLDER_QUERY) for i in drive_ids])
        return [folders_from(rows) for rows in answers]

    def site_tree(
        self,
        top: list[Site],
        *,
        sub_site_kept: Callable[[Site], bool] = lambda site: True,
        drive_kept: Callable[[Site, Drive], bool] = lambda site, drive: True,
    ) -> list[Site]:
        """The sites `top`, each followed by its sub-sites that `sub_site_kept` admits, every one
        with the drives that `drive_kept` admits; a site appears once. Two rounds of JSON batches:
        the top sites' sub-sites and drives together, then the drives of the sub-sites found."""
        top = _unique(top)
        children, drives = self.sub_sites_and_drives(top)
        for site, found in zip(top, drives, strict=True):
            site.drives = [d for d in found if drive_kept(site, d)]
        ordered: list[Site] = []
        for site, subs in zip(top, children, strict=True):
            ordered.append(site)
            ordered.extend(s for s in subs if sub_site_kept(s))
        sites = _unique(ordered)
        top_ids = {site.id for site in top}
        subs = [site for site in sites if site.id not in top_ids]
        for site, found in zip(subs, self.drives_of([s.id for s in subs]), strict=True):
            site.drives = [d for d in found if drive_kept(site, d)]
        return sites

    # ---- files (the tool hub's document tools)
    def drive_search(self, drive_id: str, *, text: str, top: int) -> list[dict]:
        """One page of a drive's items matching `text` (names, content and metadata)."""
        term = quote(text.replace("'", "''"), safe="")
        path = f"/drives/{segment(drive_id)}/root/search(q='{term}')"
        body = self.get_json(path, params={"$top": top, "$select": ITEM_FIELDS})
        return [item for item in body.get("value") or [] if isinstance(item, dict)]

    def drive_item(self, drive_id: str, item_id: str) -> dict:
        return self.get_json(item_path(drive_id, item_id))

    def file_upload(
        self,
        drive_id: str,
        parent_id: str | None,
        *,
        name: str,
        content: bytes,
        content_type: str,
        conflict: str,
    ) -> dict:
        """A small file (simple upload, one request) named `name` in a folder (None: the drive's
        root); `conflict` says what happens when the name is taken: fail, replace or rename. The
        platform takes the behaviour of a PUT from the query, not the body."""
        response = self.request(
            "PUT",
            upload_path(drive_id, parent_id, name),
            params={CONFLICT: conflict},
            data=content,
            headers={"Content-Type": content_type},
        )
        return self.json_of(response)

    def folder_create(self, drive_id: str, parent_id: str | None, *, name: str, conflict: str) -> dict:
        """A new folder `name` in a folder (None: the drive's root)."""
        body = {"name": name, "folder": {}, CONFLICT: conflict}
        return self.json_of(self.request("POST", folder_path(drive_id, parent_id) + "/children", json=body))

    def item_delete(self, drive_id: str, item_id: str) -> None:
        """Delete a file or a folder with everything in it (to the site's recycle bin)."""
        self.request("DELETE", item_path(drive_id, item_id)).close()

    def item_invite(
        self,
        drive_id: str,
        item_id: str,
        *,
        emails: list[str],
        role: str,
        send_invitation: bool,
        message: str | None = None,
    ) -> list[dict]:
        """Grant the people at `emails` `role` (read or write) on an item, signed in only; with
        `send_invitation` the platform mails them (with `message`). The permissions granted."""
        body = {
            "recipients": [{"email": email} for email in emails],
            "roles": [role],
            "requireSignIn": True,
            "sendInvitation": send_invitation,
        }
        if message is not None:
            body["message"] = message
        answer = self.json_of(self.request("POST", invite_path(drive_id, item_id), json=body))
        return [row for row in answer.get("value") or [] if isinstance(row, dict)]

    # ---- directory
    def member_group_ids(self, address: str) -> set[str]:
        """The ids of the directory groups the person at `address` (a user principal name or an
        e-mail address) belongs to, directly or through nested groups; none when the directory
        knows no such person. The directory finds people by id or user principal name: an address
        it does not know as one is looked up as a `mail` address."""
        address = address.strip()
        try:
            return self._member_group_ids(address)
        except VendorNotFound:
            pass
        literal = address.replace("'", "''")
        people = read_collection(self, "/users", {"$filter": f"mail eq '{literal}'", "$select": "id"})
        return set().union(*(self._member_group_ids(str(person["id"])) for person in people))

    def _member_group_ids(self, user: str) -> set[str]:
        return member_group_ids(read_collection(self, transitive_groups_path(user), MEMBER_QUERY))

    def site_probe(self) -> None:
        """The cheapest authenticated read (a connection test)."""
        self.get_json("/sites", params={"search": "*", "$top": 1})


def _unique(sites: Iterable[Site]) -> list[Site]:
    seen: set[str] = set()
    result = []
    for site in sites:
        if site.id not in seen:
            seen.add(site.id)
            result.append(site)
    return result
