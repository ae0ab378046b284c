"""Pipeline stage "extract" (DESIGN section 15): a file's bytes to its text.

Parsing runs in a child process under a time limit (`INGEST_EXTRACT_TIMEOUT_S`) and a memory
limit (`INGEST_EXTRACT_MEMORY_MB`), so that a hostile or broken file costs one failed document,
never a hung or bloated worker. Every failure is an `ExtractionFailed` whose `error_type` is one of
the failed-file vocabulary (`ingestion.records.ERROR_TYPES`).
"""

from __future__ import annotations

from django.conf import settings

from ingestion.pipeline.extract_process import extraction_run
from ingestion.pipeline.formats import IMAGE_KINDS, ExtractionFailed, format_kind

__all__ = ["ExtractionFailed", "format_check", "format_supported", "text_extract"]


def format_check(*, file_name: str, mime_type: str | None, use_ocr: bool) -> str:
    """The file's kind (see `formats`), decided from its name and MIME type alone, so that the
    pipeline can refuse a file before downloading it: UNSUPPORTED_FORMAT for a type that is not
    read, OCR_FAILED for an image when OCR is off (images are read only through OCR)."""
    kind = format_kind(file_name=file_name, mime_type=mime_type)
    if kind is None:
        raise ExtractionFailed(
            "UNSUPPORTED_FORMAT", f"{file_name!r} ({mime_type or 'no MIME type'}) is not a supported type."
        )
    if kind in IMAGE_KINDS and not use_ocr:
        raise ExtractionFailed(
            "OCR_FAILED", "Images are read only through OCR, which is off for this configuration."
        )
    return kind


def format_supported(*, file_name: str, mime_type: str | None, use_ocr: bool) -> bool:
    try:
        format_check(file_name=file_name, mime_type=mime_type, use_ocr=use_ocr)
    except ExtractionFailed:
        return False
    return True


def text_extract(*, content: bytes, file_name: str, mime_type: str | None, use_ocr: bool) -> str:
    """The document's text; images and scanned PDFs through OCR when `use_ocr`. Never an empty
    success for those: no text found is OCR_FAILED. Other documents may be empty."""
    kind = format_check(file_name=file_name, mime_type=mime_type, use_ocr=use_ocr)
    reply = extraction_run(
        kind=kind,
        content=content,
        use_ocr=use_ocr,
        time_limit=settings.INGEST_EXTRACT_TIMEOUT_S,
        memory_mb=settings.INGEST_EXTRACT_MEMORY_MB,
    )
    if "error_type" in reply:
        raise ExtractionFailed(reply["error_type"], reply["message"])
    return reply["text"]
