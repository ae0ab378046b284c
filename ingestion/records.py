"""The failed-file record (api-spec "Failed-file record") and the vocabulary around it.

Shared by both store backends, the services and the API, so that the platforms, content types and
error types are spelled in exactly one place.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

PLATFORM_TYPES: tuple[str, ...] = ("sitelib", "itsmplatform", "wikispace", "itdocs", "web")

# DESIGN section 10: each platform p maps to p_article and p_attachment.
CONTENT_TYPES: tuple[str, ...] = tuple(
    f"{p}_{kind}" for p in PLATFORM_TYPES for kind in ("article", "attachment")
)

ERROR_TYPES: tuple[str, ...] = (
    "FILE_TOO_LARGE",
    "PARSE_ERROR",
    "ACCESS_DENIED",
    "UNSUPPORTED_FORMAT",
    "ENCODING_ERROR",
    "TIMEOUT",
    "NETWORK_ERROR",
    "OCR_FAILED",
    "VECTOR_EMBEDDING_FAILED",
)


def content_types_for(platform_type: str) -> tuple[str, str]:
    if platform_type not in PLATFORM_TYPES:
        raise ValueError(f"Unknown platform type {platform_type!r}.")
    return (f"{platform_type}_article", f"{platform_type}_attachment")


def file_key(file_id: str) -> str:
    """A stable hash of the file id: the Azure RowKey (file ids can hold characters that keys may
    not, such as '/', '#' and '?', and can be longer than a key may be) and the ORM's unique key."""
    return hashlib.sha256(file_id.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class FailureReport:
    """What an ingestion producer reports about one failed file."""

    tenant_id: str
    platform_domain: str
    content_type: str
    file_id: str
    file_name: str
    source_url: str
    error_type: str
    error_message: str
    failed_at: datetime


@dataclass(frozen=True)
class FailedFile(FailureReport):
    """One stored record: the latest failure of a file, and how many times it has failed."""

    retry_count: int


@dataclass(frozen=True)
class FailedFilePage:
    items: list[FailedFile]
    total: int
