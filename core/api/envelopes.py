"""Success and error bodies of the three families, rendered here and nowhere else."""

from __future__ import annotations

from rest_framework.response import Response

from core.api.errors import ApiError, RequestInvalid
from core.api.families import Family
from core.api.request_id import current_request_id
from core.api.timestamps import utc_timestamp


def envelope(
    data, *, message: str = "Request completed successfully.", status: int = 200, success: bool = True
) -> Response:
    """/api/v1 body. `success=False` only for reports that carry data (an unhealthy health report)."""
    return Response(
        {"success": success, "message": message, "data": data, "timestamp": utc_timestamp()}, status=status
    )


def v2_response(data, *, message: str | None = None, status: int = 200) -> Response:
    """/v2 success: {success, data, timestamp}, plus message where the contract shows one."""
    body = {"success": True}
    if message is not None:
        body["message"] = message
    body["data"] = data
    body["timestamp"] = utc_timestamp()
    return Response(body, status=status)


def tool_response(data, *, status: int = 200, **extra) -> Response:
    """Tool interface success: {success, data, ...extra, request_id}."""
    return Response(
        {"success": True, "data": data, **extra, "request_id": current_request_id()}, status=status
    )


def error_body(exc: ApiError, family: Family) -> dict:
    if family is Family.V2:
        if isinstance(exc, RequestInvalid):
            return {
                "detail": [
                    {"loc": [exc.where, *e.loc], "msg": e.v2_msg, "type": e.v2_type} for e in exc.errors
                ]
            }
        return {"detail": exc.message}
    error = {"code": exc.code, "message": exc.message, "details": exc.details}
    if family is Family.TOOL:
        return {"success": False, "error": error, "request_id": current_request_id()}
    return {"success": False, "error": error, "timestamp": utc_timestamp()}


def error_status(exc: ApiError, family: Family) -> int:
    if family is Family.V2 and isinstance(exc, RequestInvalid):
        return 422
    return exc.status_code
