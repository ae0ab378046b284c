"""The document-site platform (`sitelib`): an app-only token from the identity platform through
msal, then the Graph-style API (sites, sub-sites, drives, folders), every `@odata.nextLink` followed.

msal talks to the identity platform through a guarded outbound session (`http_client=`), so the
same timeouts, guard and CA bundle apply to it. Instance discovery is off: msal would otherwise ask
login.microsoftonline.com to vouch for any authority host it does not know (a national cloud, a
private deployment, the test fake); the authority host comes from `SITELIB_LOGIN_URL`, which only
operators set. msal still fetches the tenant's OpenID configuration from the authority.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlencode, urlsplit

import msal
import requests
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from msal.exceptions import MsalServiceError

from integrations.base import VendorClient
from integrations.errors import CredentialsInvalid, VendorDenied, VendorTimeout, VendorUnavailable
from integrations.http import outbound_session
from integrations.sitelib_batch import read_collection, read_collections

PLATFORM = "sitelib"
ITEM_FIELDS = "id,name,webUrl,size,file,folder,lastModifiedDateTime,parentReference"
DRIVE_QUERY = {"$select": "id,name,driveType,webUrl"}
FOLDER_QUERY = {"$select": "id,name,webUrl,folder"}
_GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_DOMAIN = re.compile(r"^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$", re.I)
_SHA1_HEX = re.compile(r"^[0-9a-f]{40}$", re.I)
# Token errors that mean "the platform is in trouble", not "these credentials are refused".
_TRANSIENT_TOKEN_ERRORS = frozenset({"temporarily_unavailable", "server_error"})


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


@dataclass
class Site:
    id: str
    name: str
    url: str
    drives: list[Drive] = field(default_factory=list)
    parent_id: str | None = None  # set on sub-sites


class SitelibClient(VendorClient):
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
                self._token = self._acquire_token()
            return self._token

    def _acquire_token(self) -> str:
        credential = self._msal_credential()
        scope = "{0.scheme}://{0.netloc}/.default".format(urlsplit(self.base_url))
        with outbound_session(retry_posts=True) as http:  # a client-credentials grant creates nothing
            try:
                app = msal.ConfidentialClientApplication(
                    self.credentials.client_id,
                    authority=f"{self.login_url}/{self.credentials.cloud_tid}",
                    client_credential=credential,
                    http_client=http,
                    instance_discovery=False,
                    token_cache=msal.TokenCache(),  # this call only: nothing outlives the request
                )
                result = app.acquire_token_for_client(scopes=[scope])
            except requests.Timeout as exc:
                raise VendorTimeout(
                    "The identity platform did not answer in time.", platform=PLATFORM
                ) from exc
            except (requests.RequestException, MsalServiceError, json.JSONDecodeError, KeyError) as exc:
                raise VendorUnavailable(
                    "The identity platform could not be reached.", platform=PLATFORM
                ) from exc
            except ValueError as exc:
                # msal's tenant discovery answers ValueError when the platform does not know the tenant.
                raise VendorDenied(
                    "The identity platform does not recognise this directory tenant.", platform=PLATFORM
                ) from exc
        return self._token_from(result)

    def _msal_credential(self) -> str | dict:
        creds = self.credentials
        if not cloud_tid_valid(creds.cloud_tid):
            raise CredentialsInvalid(
                "Not a directory tenant GUID or domain.", platform=PLATFORM, field="cloud_tid"
            )
        if not creds.uses_certificate:
            if not creds.client_secret:
                raise CredentialsInvalid(
                    "A client secret or a certificate (thumbprint and key) is required.",
                    platform=PLATFORM,
                    field="client_secret",
                )
            return creds.client_secret
        if not thumbprint_valid(creds.thumbprint):
            raise CredentialsInvalid(
                "Not a SHA-1 certificate thumbprint.", platform=PLATFORM, field="thumbprint"
            )
        try:
            serialization.load_pem_private_key(creds.private_key.encode(), password=None)
        except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
            raise CredentialsInvalid(
                "The key is not an unencrypted PEM private key.", platform=PLATFORM, field="key"
            ) from exc
        return {"private_key": creds.private_key, "thumbprint": creds.thumbprint.replace(":", "")}

    @staticmethod
    def _token_from(result: dict) -> str:
        if "access_token" in result:
            return result["access_token"]
        error = str(result.get("error") or "unknown_error")
        # The platform's description starts with its own code (AADSTS...) and never echoes secrets;
        # its first line is what an operator needs.
        description = str(result.get("error_description") or "").splitlines()[0:1]
        message = f"The identity platform refused the token request: {error}"
        if description:
            message += f" ({description[0][:200]})"
        kind = VendorUnavailable if error in _TRANSIENT_TOKEN_ERRORS else VendorDenied
        raise kind(message, platform=PLATFORM, vendor_code=error)

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

    # ---- resources
    def sites_all(self) -> list[Site]:
        return [_site(raw) for raw in read_collection(self, "/sites", {"search": "*"})]

    def site_by_url(self, url: str) -> Site:
        parts = urlsplit(url)
        path = parts.path.rstrip("/")
        address = f"/sites/{parts.hostname}" + (f":{quote(path, safe='/')}" if path else "")
        return _site(self.get_json(address))

    def sub_sites(self, site: Site) -> list[Site]:
        return [_site(raw, parent_id=site.id) for raw in read_collection(self, _sub_sites_path(site.id))]

    def drives(self, site_id: str) -> list[Drive]:
        return _drives(read_collection(self, _drives_path(site_id), DRIVE_QUERY))

    def folders(self, drive_id: str) -> list[Folder]:
        """The folders at the root of a drive."""
        return _folders(read_collection(self, _children_path(drive_id), FOLDER_QUERY))

    # ---- the same reads for many objects at once, in JSON batches (integrations/sitelib_batch.py)
    def sub_sites_and_drives(self, sites: list[Site]) -> tuple[list[list[Site]], list[list[Drive]]]:
        """Each site's sub-sites and its drives, all asked in one round of batches (neither read
        depends on the other); sub-site reads come first, so their failures are raised first."""
        urls = [_sub_sites_path(s.id) for s in sites]
        urls += [_with_query(_drives_path(s.id), DRIVE_QUERY) for s in sites]
        answers = read_collections(self, urls)
        children = [
            [_site(raw, parent_id=site.id) for raw in rows]
            for site, rows in zip(sites, answers[: len(sites)], strict=True)
        ]
        return children, [_drives(rows) for rows in answers[len(sites) :]]

    def drives_of(self, site_ids: list[str]) -> list[list[Drive]]:
        answers = read_collections(self, [_with_query(_drives_path(i), DRIVE_QUERY) for i in site_ids])
        return [_drives(rows) for rows in answers]

    def folders_of(self, drive_ids: list[str]) -> list[list[Folder]]:
        """The folders at the root of each drive."""
        answers = read_collections(self, [_with_query(_children_path(i), FOLDER_QUERY) for i in drive_ids])
        return [_folders(rows) for rows in answers]

    # ---- files (the tool hub's document tools)
    def drive_search(self, drive_id: str, *, text: str, top: int) -> list[dict]:
        """One page of a drive's items matching `text` (names, content and metadata)."""
        term = quote(text.replace("'", "''"), safe="")
        path = f"/drives/{_segment(drive_id)}/root/search(q='{term}')"
        body = self.get_json(path, params={"$top": top, "$select": ITEM_FIELDS})
        return [item for item in body.get("value") or [] if isinstance(item, dict)]

    def drive_item(self, drive_id: str, item_id: str) -> dict:
        return self.get_json(f"/drives/{_segment(drive_id)}/items/{_segment(item_id)}")

    def site_probe(self) -> None:
        """The cheapest authenticated read (a connection test)."""
        self.get_json("/sites", params={"search": "*", "$top": 1})


def _segment(value: str) -> str:
    return quote(value, safe=",!")


def _sub_sites_path(site_id: str) -> str:
    return f"/sites/{_segment(site_id)}/sites"


def _drives_path(site_id: str) -> str:
    return f"/sites/{_segment(site_id)}/drives"


def _children_path(drive_id: str) -> str:
    return f"/drives/{_segment(drive_id)}/root/children"


def _with_query(path: str, params: dict) -> str:
    """A path with its query, encoded as requests encodes `params=`."""
    return f"{path}?{urlencode(params)}"


def _drives(items) -> list[Drive]:
    return [
        Drive(
            id=d["id"], name=d.get("name", ""), drive_type=d.get("driveType", ""), web_url=d.get("webUrl", "")
        )
        for d in items
        if d.get("id")
    ]


def _folders(items) -> list[Folder]:
    return [_folder(item) for item in items if "folder" in item and item.get("id")]


def _site(raw: dict, *, parent_id: str | None = None) -> Site:
    return Site(
        id=str(raw.get("id", "")),
        name=str(raw.get("displayName") or raw.get("name") or ""),
        url=str(raw.get("webUrl", "")),
        parent_id=parent_id,
    )


def _folder(raw: dict) -> Folder:
    web_url = str(raw.get("webUrl", ""))
    return Folder(
        id=str(raw["id"]),
        name=str(raw.get("name", "")),
        path=unquote(urlsplit(web_url).path) if web_url else "/" + str(raw.get("name", "")),
        web_url=web_url,
        child_count=int((raw.get("folder") or {}).get("childCount") or 0),
    )
