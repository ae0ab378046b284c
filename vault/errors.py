"""The vault's error types (stable codes of the contract)."""

from __future__ import annotations

from core.api.errors import Conflict, ResourceNotFound


class CredentialNotFound(ResourceNotFound):
    code = "CREDENTIAL_NOT_FOUND"


class CredentialAlreadyDeleted(Conflict):
    code = "CREDENTIAL_ALREADY_DELETED"
