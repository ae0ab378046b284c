"""The fake document-site API with the write routes of the tool hub's document tools, as the platform
serves them: a small file's simple upload (`PUT .../items/{parent}:/{name}:/content`, or under
`root:`), a new folder (`POST .../items/{parent}/children`, or `root/children`) and an item's delete
(`DELETE .../items/{id}`, 204). A taken name follows `@microsoft.graph.conflictBehavior` (the query of
a PUT, default `replace`; the body of a POST, default `fail`): `fail` is 409 `nameAlreadyExists`,
`rename` picks `name 1.ext`, `replace` overwrites a file's content (a folder stays as it is). A
sharing invitation (`POST .../items/{id}/invite`) answers one permission per recipient, keeps
them in `permissions` (item id -> list) and adds them to the item's permissions as the platform
lists them (the item stops inheriting, keeping what it inherited)."""

from __future__ import annotations

import json
import uuid
from urllib.parse import unquote

from tests.fakes.graph_drive import MODIFIED, FakeContent, FakeDrive, file_item, folder_item, graph_error
from tests.fakes.graph_tools import FakeGraphTools
from tests.fakes.server import Received, Reply, route

DRIVE = r"/v1\.0/drives/(?P<drive_id>[^/]+)"
CONFLICT = "@microsoft.graph.conflictBehavior"
BEHAVIOURS = ("fail", "replace", "rename")


class FakeGraphWrites(FakeGraphTools):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.permissions: dict[str, list[dict]] = {}

    @route("POST", DRIVE + r"/items/(?P<item_id>[^/]+)/invite")
    def invite(self, request: Received, drive_id: str, item_id: str) -> Reply:
        denied = self._authorized(request)
        drive = self._drive(drive_id)
        item = drive.find(unquote(item_id)) if drive else None
        if denied or item is None:
            return denied or Reply(404, graph_error("itemNotFound", "The resource could not be found."))
        body = request.json()
        emails = [r.get("email") for r in body.get("recipients") or [] if isinstance(r, dict)]
        roles = body.get("roles")
        if not emails or not all(emails) or roles not in (["read"], ["write"]):
            return Reply(400, graph_error("invalidRequest", "Recipients and one role are required."))
        granted = [_permission(email, roles, body.get("requireSignIn") is True) for email in emails]
        self.permissions.setdefault(item["id"], []).extend(granted)
        drive.unique[item["id"]] = [*self.effective_permissions(drive, item), *granted]
        return Reply(200, {"value": granted})

    @route("PUT", DRIVE + r"/(?:root|items/(?P<parent_id>[^/:]+)):/(?P<name>[^/]+):/content")
    def upload(self, request: Received, drive_id: str, parent_id: str | None, name: str) -> Reply:
        drive, parent, refusal = self._folder(request, drive_id, parent_id)
        behaviour = (request.query.get(CONFLICT) or ["replace"])[0]
        if refusal or behaviour not in BEHAVIOURS:
            return refusal or Reply(400, graph_error("invalidRequest", f"Unknown {CONFLICT}."))
        name = unquote(name)
        existing = _child_named(drive, parent, name)
        if existing is not None and behaviour == "replace" and "file" in existing:
            drive.replace(existing, data=request.body, modified=MODIFIED)
            return Reply(200, existing)
        if existing is not None and behaviour != "rename":
            return _name_taken(name)
        mime = request.headers.get("Content-Type", "application/octet-stream").split(";")[0]
        item = file_item(
            _free_name(drive, parent, name), request.body, size=None, mime=mime, modified=MODIFIED
        )
        return Reply(201, drive.add(item, parent, content=FakeContent(request.body)))

    @route("POST", DRIVE + r"/(?:root|items/(?P<parent_id>[^/]+))/children")
    def create_child(self, request: Received, drive_id: str, parent_id: str | None) -> Reply:
        drive, parent, refusal = self._folder(request, drive_id, parent_id)
        if refusal:
            return refusal
        try:
            body = request.json()
        except ValueError:
            body = None
        behaviour = body.get(CONFLICT, "fail") if isinstance(body, dict) else None
        if behaviour not in BEHAVIOURS or not body.get("name") or not isinstance(body.get("folder"), dict):
            return Reply(400, graph_error("invalidRequest", "A folder needs a name and a folder facet."))
        existing = _child_named(drive, parent, body["name"])
        if existing is not None and behaviour == "replace" and "folder" in existing:
            return Reply(200, existing)
        if existing is not None and behaviour != "rename":
            return _name_taken(body["name"])
        item = folder_item(_free_name(drive, parent, body["name"]), child_count=0)
        return Reply(201, drive.add(item, parent))

    @route("DELETE", DRIVE + r"/items/(?P<item_id>[^/]+)")
    def delete(self, request: Received, drive_id: str, item_id: str) -> Reply:
        denied = self._authorized(request)
        drive = self._drive(drive_id)
        item = drive.by_id.get(unquote(item_id)) if drive else None
        if denied or item is None:
            return denied or Reply(404, graph_error("itemNotFound", "The resource could not be found."))
        drive.delete(item)
        return Reply(204)

    def _folder(
        self, request: Received, drive_id: str, parent_id: str | None
    ) -> tuple[FakeDrive | None, dict | None, Reply | None]:
        """The drive and the folder written into (None: the root), or the platform's refusal."""
        denied = self._authorized(request)
        drive = self._drive(drive_id)
        if denied or drive is None:
            return None, None, denied or Reply(404, graph_error("itemNotFound", "Drive not found"))
        if parent_id is None:
            return drive, None, None
        parent = drive.find(unquote(parent_id))
        if parent is None or "folder" not in parent:
            return None, None, Reply(404, graph_error("itemNotFound", "The resource could not be found."))
        return drive, parent, None


def _child_named(drive: FakeDrive, parent: dict | None, name: str) -> dict | None:
    siblings = drive.children(parent["id"] if parent else drive.root_id)
    return next((item for item in siblings if item["name"].lower() == name.lower()), None)


def _free_name(drive: FakeDrive, parent: dict | None, name: str) -> str:
    stem, dot, extension = name.rpartition(".") if "." in name.lstrip(".") else (name, "", "")
    candidate, number = name, 0
    while _child_named(drive, parent, candidate) is not None:
        number += 1
        candidate = f"{stem} {number}{dot}{extension}"
    return candidate


def _name_taken(name: str) -> Reply:
    message = f"The specified item name already exists. Name: {json.dumps(name)[1:-1]}"
    return Reply(409, graph_error("nameAlreadyExists", message))


def _permission(email: str, roles: list[str], sign_in: bool) -> dict:
    person = {"id": uuid.uuid4().hex, "displayName": email.split("@")[0], "email": email}
    return {
        "id": uuid.uuid4().hex.upper(),
        "roles": roles,
        "grantedToV2": {"user": person},
        "invitation": {"email": email, "signInRequired": sign_in},
    }
