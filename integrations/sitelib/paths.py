"""Addresses of the document-site API's resources, relative to its root (`SITELIB_GRAPH_URL`)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

CONFLICT = "@microsoft.graph.conflictBehavior"  # fail | replace | rename, when a name is taken
ITEM_FIELDS = "id,name,webUrl,size,file,folder,lastModifiedDateTime,parentReference"
DRIVE_QUERY = {"$select": "id,name,driveType,webUrl"}
FOLDER_QUERY = {"$select": "id,name,webUrl,folder"}
# What ingestion reads of an item (the change feed adds `deleted`, and `root` marks the drive's root).
ITEM_QUERY = {
    "$select": "id,name,webUrl,size,file,folder,root,deleted,lastModifiedDateTime,eTag,cTag,parentReference"
}

# What a person's memberships are read for: each object's type tells groups from directory roles.
MEMBER_QUERY = {"$select": "id,displayName"}


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


def folder_path(drive_id: str, folder_id: str | None) -> str:
    """A folder addressed by id; None is the drive's root."""
    if folder_id is None:
        return f"/drives/{segment(drive_id)}/root"
    return item_path(drive_id, folder_id)


def upload_path(drive_id: str, parent_id: str | None, name: str) -> str:
    """Simple upload of a new file `name` into a folder (None: the root)."""
    return f"{folder_path(drive_id, parent_id)}:/{quote(name, safe='')}:/content"


def invite_path(drive_id: str, item_id: str) -> str:
    """The sharing invitation of an item: grants people access to it."""
    return item_path(drive_id, item_id) + "/invite"


def transitive_groups_path(user: str) -> str:
    """The groups, directory roles and administrative units a user (by id or user principal name)
    belongs to, directly or through nested groups."""
    return f"/users/{segment(user)}/transitiveMemberOf"


def delta_path(drive_id: str) -> str:
    return f"/drives/{segment(drive_id)}/root/delta"


def with_query(path: str, params: dict) -> str:
    """A path with its query, encoded as requests encodes `params=`."""
    return f"{path}?{urlencode(params)}"
