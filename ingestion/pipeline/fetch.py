"""Pipeline stage "fetch": decide from the item's metadata whether it can be read (size, type), then
fetch its content within `INGEST_DOWNLOAD_TIMEOUT_S`, retries included. An oversized item's content
is never asked for."""

from __future__ import annotations

from django.conf import settings

from core.outbound import OutboundRefused
from ingestion.pipeline.extract import ExtractionFailed, format_check
from ingestion.pipeline.failures import ItemFailed, ItemGone
from ingestion.pipeline.sources import Content, Source, SourceItem
from integrations.errors import (
    ContentTooLarge,
    VendorDenied,
    VendorError,
    VendorNotFound,
    VendorTimeout,
)

MB = 1024 * 1024


def max_bytes() -> int:
    return settings.INGEST_MAX_FILE_MB * MB


def item_check(*, item: SourceItem, use_ocr: bool) -> None:
    """FILE_TOO_LARGE from the platform's size, then UNSUPPORTED_FORMAT (or OCR_FAILED for an
    image without OCR) from the name and MIME type: both before any download."""
    if item.size is not None and item.size > max_bytes():
        raise ItemFailed(
            "FILE_TOO_LARGE",
            f"{item.size / MB:.1f} MB is over the limit of {settings.INGEST_MAX_FILE_MB} MB "
            "(INGEST_MAX_FILE_MB).",
        )
    try:
        format_check(file_name=item.file_name, mime_type=item.mime_type or None, use_ocr=use_ocr)
    except ExtractionFailed as exc:
        raise ItemFailed(exc.error_type, exc.message) from None


def item_fetch(*, source: Source, item: SourceItem) -> Content:
    """The item's content, or why not: ItemGone (deleted since discovery) or ItemFailed."""
    try:
        return source.content(item, max_bytes=max_bytes(), timeout_s=settings.INGEST_DOWNLOAD_TIMEOUT_S)
    except VendorNotFound as exc:
        raise ItemGone(item.key) from exc
    except ContentTooLarge as exc:
        raise ItemFailed("FILE_TOO_LARGE", exc.message) from None
    except VendorTimeout as exc:
        raise ItemFailed("TIMEOUT", exc.message) from None
    except VendorDenied as exc:
        raise ItemFailed("ACCESS_DENIED", exc.message) from None
    except VendorError as exc:  # unreachable, reset, throttled past the budget, 5xx
        raise ItemFailed("NETWORK_ERROR", exc.message) from None
    except OutboundRefused as exc:
        raise ItemFailed("NETWORK_ERROR", f"The download was refused by the outbound guard: {exc}") from None
