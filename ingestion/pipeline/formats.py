"""The file types extraction supports (DESIGN section 15) and its one exception type.

Imported by both sides of extraction: the service process (`extract`) and the child process that
parses (`extract_child`), so it imports nothing but the standard library.
"""

from __future__ import annotations

import posixpath

# A file's kind is the reader that handles it; .htm is read as html.
DOCUMENT_KINDS = ("pdf", "doc", "docx", "txt", "rtf", "xls", "xlsx", "ppt", "pptx", "html")
IMAGE_KINDS = ("png", "jpg", "gif", "bmp")

KIND_BY_EXTENSION = {kind: kind for kind in DOCUMENT_KINDS + IMAGE_KINDS} | {"htm": "html", "jpeg": "jpg"}

KIND_BY_MIME = {
    "application/pdf": "pdf",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "text/plain": "txt",
    "application/rtf": "rtf",
    "text/rtf": "rtf",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.ms-powerpoint": "ppt",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "text/html": "html",
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/bmp": "bmp",
}


class ExtractionFailed(Exception):
    """Text could not be had from a file; `error_type` is one of `ingestion.records.ERROR_TYPES`."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(f"{error_type}: {message}")
        self.error_type = error_type
        self.message = message


def format_kind(*, file_name: str, mime_type: str | None) -> str | None:
    """The file's kind, or None when extraction does not read it. The name's extension decides;
    the MIME type (parameters ignored) only when the name has none."""
    extension = posixpath.splitext(file_name)[1].lower().lstrip(".")
    if extension:
        return KIND_BY_EXTENSION.get(extension)
    media_type = (mime_type or "").split(";")[0].strip().lower()
    return KIND_BY_MIME.get(media_type)
