"""Pipeline stage "extract": text out of every supported kind of file, and each failure under its
failed-file error type. Files are made by `tests/ingestion/documents.py`."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ingestion.pipeline.extract import ExtractionFailed, format_supported, text_extract
from ingestion.pipeline.extract_process import ExtractionChild
from ingestion.pipeline.readers import image_read, legacy_read
from ingestion.records import ERROR_TYPES
from tests.ingestion import documents

# Debian's programs behind OCR and the legacy Office formats; bin/ensure-extractors installs them
# (CI runs it), so these tests run there.
needs_tesseract = pytest.mark.skipif(
    not shutil.which("tesseract"), reason="needs tesseract: bin/ensure-extractors"
)
needs_libreoffice = pytest.mark.skipif(
    not shutil.which("soffice"), reason="needs soffice: bin/ensure-extractors"
)


def extract(content: bytes, file_name: str, *, mime_type: str | None = None, use_ocr: bool = False) -> str:
    return text_extract(content=content, file_name=file_name, mime_type=mime_type, use_ocr=use_ocr)


def failure(content: bytes, file_name: str, **options) -> ExtractionFailed:
    with pytest.raises(ExtractionFailed) as caught:
        extract(content, file_name, **options)
    assert caught.value.error_type in ERROR_TYPES
    return caught.value


def words(text: str) -> str:
    return " ".join(text.lower().split())


# Documents


def test_it_reads_a_word_document_with_its_tables():
    content = documents.docx_bytes("The lighthouse keeper logs every ship.", table=[["Vessel", "Arrival"]])
    text = extract(content, "log.docx")
    assert "The lighthouse keeper logs every ship." in text
    assert "Vessel\tArrival" in text


def test_it_reads_every_sheet_of_a_workbook():
    content = documents.xlsx_bytes(
        {"Budget": [["Item", "Amount"], ["Boiler service", 420]], "Notes": [["Paid"]]}
    )
    text = extract(content, "budget.xlsx")
    assert text.splitlines() == ["Budget", "Item\tAmount", "Boiler service\t420", "Notes", "Paid"]


def test_it_reads_slides_text_boxes_tables_and_notes():
    content = documents.pptx_bytes(
        "River ferries",
        "Boarding closes early.",
        notes="Mention the winter timetable.",
        table=[["Pier", "Gate"]],
    )
    text = extract(content, "ferries.pptx")
    for expected in (
        "River ferries",
        "Boarding closes early.",
        "Mention the winter timetable.",
        "Pier\tGate",
    ):
        assert expected in text


def test_it_reads_a_pdf_text_layer():
    text = extract(documents.pdf_bytes("Quarterly report on harbour dredging."), "report.pdf")
    assert "quarterly report on harbour dredging." in words(text)


def test_it_reads_a_pdf_that_only_restricts_editing():
    content = documents.encrypted_pdf_bytes("Open to every reader.", user_password="")
    assert "open to every reader." in words(extract(content, "open.pdf"))


def test_it_reads_rtf_with_its_escaped_characters():
    content = (
        rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Arial;}}\f0\pard Caf\'e9 menus for the harbour\par}"
    )
    assert extract(content, "menu.rtf").strip() == "Café menus for the harbour"


def test_it_reads_html_without_scripts_or_styles():
    content = (
        b"<html><head><title>Tides</title><style>p { color: red }</style><script>var hidden = 1;</script>"
        b"</head><body><h1>Tide tables</h1><p>High water at noon.</p></body></html>"
    )
    text = extract(content, "tides.htm")
    assert "Tide tables" in text and "High water at noon." in text
    assert "hidden" not in text and "color" not in text


def test_it_reads_text_in_utf8_and_in_a_legacy_encoding():
    sentence = "Grüße aus Köln: die Straßenbahn fährt um acht Uhr ab."
    assert extract(sentence.encode("utf-8"), "note.txt") == sentence
    assert extract(sentence.encode("latin-1"), "note.txt") == sentence


def test_it_takes_the_type_from_the_mime_type_when_the_name_has_no_extension():
    assert extract(b"plain words", "README", mime_type="text/plain; charset=utf-8") == "plain words"


@pytest.fixture(scope="module")
def legacy_files() -> dict[str, bytes]:
    return documents.legacy_bytes(
        {
            "docx": documents.docx_bytes("Legacy memo about quarterly heating costs."),
            "xlsx": documents.xlsx_bytes({"Budget": [["Boiler service", 420]]}),
            "pptx": documents.pptx_bytes("Ferry slide", "Legacy slide about river ferries."),
        }
    )


@needs_libreoffice
def test_it_reads_word_excel_and_powerpoint_97_files(legacy_files):
    assert "Legacy memo about quarterly heating costs." in extract(legacy_files["doc"], "memo.doc")
    assert "Boiler service\t420" in extract(legacy_files["xls"], "budget.xls")
    assert "Legacy slide about river ferries." in extract(legacy_files["ppt"], "slides.ppt")


# Images and scans (Tesseract)


@needs_tesseract
@pytest.mark.parametrize(
    ("file_name", "image_format", "background"),
    [
        ("scan.png", "PNG", "white"),
        ("scan.png", "PNG", (255, 255, 255, 0)),  # transparent
        ("scan.jpeg", "JPEG", "white"),
        ("scan.gif", "GIF", "white"),
        ("scan.bmp", "BMP", "white"),
    ],
)
def test_it_reads_images_through_ocr(file_name, image_format, background):
    image = documents.text_image("Invoice for harbour cranes", background=background)
    text = extract(documents.image_bytes(image, image_format), file_name, use_ocr=True)
    assert "invoice for harbour cranes" in words(text)


@needs_tesseract
def test_it_reads_a_scanned_pdf_through_ocr():
    text = extract(documents.scanned_pdf_bytes("Minutes of the pilots meeting"), "minutes.pdf", use_ocr=True)
    assert "minutes of the pilots meeting" in words(text)


def test_it_fails_images_and_scans_without_ocr_instead_of_returning_nothing():
    image = documents.image_bytes(documents.text_image("Invoice for harbour cranes"), "PNG")
    assert failure(image, "scan.png").error_type == "OCR_FAILED"
    scan = documents.scanned_pdf_bytes("Minutes of the pilots meeting")
    assert failure(scan, "minutes.pdf").error_type == "OCR_FAILED"


@needs_tesseract
def test_it_fails_an_image_in_which_ocr_finds_no_text():
    blank = documents.image_bytes(documents.text_image(""), "PNG")
    assert failure(blank, "blank.png", use_ocr=True).error_type == "OCR_FAILED"


# Failures


def test_it_refuses_unsupported_types_by_name_or_mime_type():
    assert failure(b"MZ\x90\x00", "setup.exe").error_type == "UNSUPPORTED_FORMAT"
    assert failure(b"PK\x03\x04", "archive", mime_type="application/zip").error_type == "UNSUPPORTED_FORMAT"


def test_it_says_which_types_it_reads_before_anything_is_downloaded():
    def supported(file_name, mime_type=None, use_ocr=False):
        return format_supported(file_name=file_name, mime_type=mime_type, use_ocr=use_ocr)

    for name in ("a.pdf", "a.doc", "a.docx", "a.txt", "a.rtf", "a.xls", "a.xlsx", "a.ppt", "a.pptx", "a.htm"):
        assert supported(name)
    assert supported("Annual Report.PDF") and supported("index.html")
    assert supported("README", "text/plain") and supported("page", "text/html; charset=utf-8")
    assert not supported("setup.exe") and not supported("archive.zip", "text/plain")
    assert not supported("notes", None) and not supported("photo", "image/png")
    for name in ("a.png", "a.jpg", "a.jpeg", "a.gif", "a.bmp"):
        assert supported(name, use_ocr=True) and not supported(name)
    assert supported("photo", "image/png", use_ocr=True)


def test_it_reports_a_corrupt_file_as_a_parse_error():
    assert failure(b"%PDF-1.4\n" + b"\x00 not a pdf " * 50, "broken.pdf").error_type == "PARSE_ERROR"
    assert failure(b"PK\x03\x04 truncated", "broken.docx").error_type == "PARSE_ERROR"
    assert failure(b"plain text, not rtf", "broken.rtf").error_type == "PARSE_ERROR"


def test_it_reports_text_it_cannot_decode_as_an_encoding_error():
    assert failure(bytes(range(256)) * 4, "binary.txt").error_type == "ENCODING_ERROR"


def test_it_reports_password_protected_files_as_access_denied():
    locked_pdf = documents.encrypted_pdf_bytes("Board minutes", user_password="s3cret")
    assert failure(locked_pdf, "minutes.pdf").error_type == "ACCESS_DENIED"
    locked_docx = documents.encrypted_docx_bytes("Salary review", password="s3cret")
    assert failure(locked_docx, "salaries.docx").error_type == "ACCESS_DENIED"


def test_it_reports_a_corrupt_image_as_a_parse_error():
    assert failure(b"\x89PNG truncated", "broken.png", use_ocr=True).error_type == "PARSE_ERROR"


def test_it_says_so_when_the_programs_for_ocr_and_legacy_files_are_missing(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ExtractionFailed) as ocr:
        image_read(content=documents.image_bytes(documents.text_image("Any words"), "PNG"))
    assert (ocr.value.error_type, ocr.value.message) == (
        "OCR_FAILED",
        "Tesseract is not installed: OCR is unavailable.",
    )
    with pytest.raises(ExtractionFailed) as legacy:
        legacy_read(kind="doc", content=b"\xd0\xcf\x11\xe0 any")
    assert legacy.value.error_type == "PARSE_ERROR"
    assert "LibreOffice (soffice) is not installed" in legacy.value.message


# Limits


def test_it_stops_a_file_that_outlasts_the_time_limit_and_goes_on_with_the_next(settings):
    settings.INGEST_EXTRACT_TIMEOUT_S = 0.1
    huge = b"<html><body>" + b"<p>ballast words fill the page</p>" * 300_000 + b"</body></html>"
    stopped = failure(huge, "huge.html")
    assert stopped.error_type == "PARSE_ERROR"
    assert "time limit" in stopped.message
    settings.INGEST_EXTRACT_TIMEOUT_S = 60
    assert extract(b"next file", "next.txt") == "next file"


def test_it_stops_a_file_that_outgrows_the_memory_limit_and_goes_on_with_the_next(settings):
    settings.INGEST_EXTRACT_MEMORY_MB = 160
    bomb = documents.docx_bomb_bytes(300_000)  # 100 kB packed, 17 MB of XML
    stopped = failure(bomb, "bomb.docx")
    assert stopped.error_type == "PARSE_ERROR"
    assert "memory limit (160 MB)" in stopped.message
    assert extract(documents.docx_bytes("Small and fine."), "next.docx") == "Small and fine."


# Where it runs


def _extract_in(queue) -> None:
    queue.put(extract(documents.docx_bytes("Read inside a worker."), "worker.docx"))


def test_it_works_inside_a_daemonic_worker_process_like_celerys_prefork_children():
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    worker = context.Process(target=_extract_in, args=(queue,), daemon=True)
    worker.start()
    assert queue.get(timeout=120) == "Read inside a worker."
    worker.join(timeout=30)
    assert worker.exitcode == 0


def test_it_serves_concurrent_threads_each_its_own_text():
    files = {f"note-{n}.txt": f"Note number {n}".encode() for n in range(8)}
    with ThreadPoolExecutor(max_workers=4) as pool:
        texts = dict(zip(files, pool.map(lambda name: extract(files[name], name), files), strict=True))
    assert texts == {name: content.decode() for name, content in files.items()}


def test_the_child_that_parses_files_holds_none_of_the_services_secrets():
    assert os.environ["DJANGO_SECRET_KEY"] and os.environ["VAULT_MASTER_KEYS"]
    child = ExtractionChild(memory_mb=1024)
    try:
        # Until the child has executed its program, /proc shows an empty environment: wait for it.
        deadline = time.monotonic() + 10
        while not (environment := Path(f"/proc/{child.process.pid}/environ").read_bytes()):
            assert time.monotonic() < deadline, "the child did not start"
            time.sleep(0.01)
    finally:
        child.stop()
    assert b"PATH=" in environment
    assert b"DJANGO_SECRET_KEY" not in environment and b"VAULT_MASTER_KEYS" not in environment
