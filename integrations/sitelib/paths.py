"""Addresses of the document-site API's resources, relative to its root (`SITELIB_GRAPH_URL`)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

ITEM_FIELDS = "id,name,webUrl,size,file,folder,lastModifiedDateTime,parentReference"
DRIVE_QUERY = {"$select": "id,name,driveType,webUrl"}
FOLDER_QUERY = {"$select": "id,name,webUrl,folder"}
# What ingestion reads of an item (the change feed adds `deleted`, and `root` marks the drive's root).
ITEM_QUERY = {
    "$select": "id,name,webUrl,size,file,folder,root,deleted,lastModifiedDateTime,eTag,cTag,parentReference"
}


def segment(value: str) -> str:
    return quote(value, safe=",!")


def sub_sites_path(site_id: str) -> str:
    return f"/sites/{segment(site_id)}/sites"


def drives_path(site_id: str) -> str:
    return f"/sites/{segment(site_id)}/drives"


def children_path(drive_id: str) -> str:
    """The children of a drive's root."""
    return f"/drives/{segment(drive_id)}/root/children"


def item_path(drive_id: str, item_id: str) -> str:
    return f"/drives/{segment(drive_id)}/items/{segment(item_id)}"


def item_at_path(drive_id: str, path: str) -> str:
    """An item addressed by its path in the drive (`Policies/2024`); the empty path is the root."""
    if not path:
        return f"/drives/{segment(drive_id)}/root"
    return f"/drives/{segment(drive_id)}/root:/{quote(path, safe='/')}"


def delta_path(drive_id: str) -> str:
    return f"/drives/{segment(drive_id)}/root/delta"


def with_query(path: str, params: dict) -> str:
    """A path with its query, encoded as requests encodes `params=`."""
    return f"{path}?{urlencode(params)}"
