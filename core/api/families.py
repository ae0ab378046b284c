"""The three response families, told apart by path prefix (DESIGN section 4).

One function decides, so a view, a JSON 404 and an unhandled 500 under the same prefix always
answer in the same shape.
"""

from __future__ import annotations

from enum import StrEnum


class Family(StrEnum):
    V1 = "v1"  # {success, message, data, timestamp} / {success, error{code,message,details}, timestamp}
    V2 = "v2"  # FastAPI style: {detail: [...]} for field errors, {detail: "text"} otherwise
    TOOL = "tool"  # {success, data, request_id} / {success, error{...}, request_id}


_TOOL_PREFIXES = ("/api/v1/tools", "/api/v1/connections", "/api/v1/approvals")


def family_for_path(path: str) -> Family:
    if path.startswith("/v2/") or path == "/v2":
        return Family.V2
    if path.startswith(_TOOL_PREFIXES):
        return Family.TOOL
    return Family.V1
