"""The tool interface's error codes (DESIGN section 4). Raised by services, rendered by core.api."""

from __future__ import annotations

from core.api.errors import ApiError, RateLimited
from core.api.timestamps import iso_ms


class ToolNotFound(ApiError):
    status_code = 404
    code = "TOOL_NOT_FOUND"


class ConnectionNotFound(ApiError):
    status_code = 404
    code = "CONNECTION_NOT_FOUND"


class ApprovalNotFound(ApiError):
    status_code = 404
    code = "APPROVAL_NOT_FOUND"


class InvalidInput(ApiError):
    """details.errors[]: {path (a JSON Pointer into the request body), keyword, message}."""

    status_code = 422
    code = "INVALID_INPUT"

    def __init__(self, errors: list[dict], message: str = "The request failed validation.") -> None:
        super().__init__(message, details={"errors": errors})


class ApprovalRequired(ApiError):
    """A gated call waits for a person: the message says, in words an agent can act on, what
    happens and what to do next."""

    status_code = 202
    code = "APPROVAL_REQUIRED"

    def __init__(self, approval, *, waiting: bool = False) -> None:
        expires = iso_ms(approval.expires_at)
        first = (
            f"This call is still waiting for an approver's decision (approval {approval.public_id})."
            if waiting
            else f"This call needs a person's approval before it runs (approval {approval.public_id})."
        )
        super().__init__(
            f"{first} An approver of this workspace decides it before {expires}. Then make the same call "
            "again, with the same arguments (and the same idempotency key, if you sent one): once "
            "approved it runs, once, and later repeats return its answer; a rejected call is refused "
            "with the approver's reason.",
            details={"approval_id": approval.public_id, "status": approval.status, "expires_at": expires},
        )
        self.approval = approval


class ApprovalRejected(ApiError):
    status_code = 403
    code = "APPROVAL_REJECTED"


class ApprovalExpired(ApiError):
    status_code = 403
    code = "APPROVAL_EXPIRED"


class ApprovalDecided(ApiError):
    status_code = 409
    code = "APPROVAL_ALREADY_DECIDED"


class IdempotencyKeyReused(ApiError):
    status_code = 422
    code = "IDEMPOTENCY_KEY_REUSED"


class IdempotencyInProgress(ApiError):
    status_code = 409
    code = "IDEMPOTENCY_IN_PROGRESS"

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "A call with this idempotency key is still running; repeat it later.",
            details={"retry_after": retry_after},
            headers={"Retry-After": str(retry_after)},
        )


class UpstreamError(ApiError):
    status_code = 502
    code = "UPSTREAM_ERROR"

    def __init__(
        self, message: str, *, status: int | None, vendor_code: str | None, timeout: bool = False
    ) -> None:
        super().__init__(
            message,
            details={"status": status, "vendor_code": vendor_code, "message": message},
            status=504 if timeout else 502,
        )


def upstream_rate_limited(*, retry_after: int, status: int, message: str) -> RateLimited:
    return RateLimited(
        "The vendor rate-limited this call.",
        wait=retry_after,
        details={"source": "upstream", "status": status, "message": message},
    )
