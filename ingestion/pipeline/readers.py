"""One reader per file kind, run inside the extraction child (`extract_child`).

Each reader imports its library when first called, so a child pays only for the kinds it reads.
A reader raises `ExtractionFailed` for what it recognises (encryption, no text layer, OCR trouble);
any other exception of a parser means a corrupt file, and the child reports it as `PARSE_ERROR`.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from ingestion.pipeline.formats import IMAGE_KINDS, ExtractionFailed

LEGACY_TARGETS = {"doc": "docx", "xls": "xlsx", "ppt": "pptx"}


def text_read(*, kind: str, content: bytes, use_ocr: bool) -> str:
    if kind in LEGACY_TARGETS:
        return legacy_read(kind=kind, content=content)
    if kind in IMAGE_KINDS:
        return image_read(content=content)
    if kind == "pdf":
        return pdf_read(content=content, use_ocr=use_ocr)
    return READERS[kind](content)


def txt_read(content: bytes) -> str:
    # Valid UTF-8 is taken as UTF-8 (a guess on a short text could differ); guessing is for the rest.
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    match = from_bytes(content).best()
    if match is None:
        raise ExtractionFailed("ENCODING_ERROR", "The text's character encoding could not be recognised.")
    return str(match)


def html_read(content: bytes) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(content, "lxml")  # bytes: the page's own charset declaration is honoured
    for element in soup(["script", "style", "noscript", "template"]):
        element.decompose()
    return soup.get_text("\n", strip=True)


def rtf_read(content: bytes) -> str:
    from striprtf.striprtf import rtf_to_text

    if not content.lstrip().startswith(b"{\\rtf"):
        raise ExtractionFailed("PARSE_ERROR", "The file is not RTF: it does not begin with {\\rtf.")
    # RTF is 7-bit text with escapes; latin-1 keeps any stray 8-bit byte as it is.
    return rtf_to_text(content.decode("latin-1"))


def docx_read(content: bytes) -> str:
    import docx
    from docx.table import Table

    document = office_open(docx.Document, content)
    lines = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            lines.extend("\t".join(cell.text for cell in row.cells) for row in block.rows)
        else:
            lines.append(block.text)
    return "\n".join(lines)


def xlsx_read(content: bytes) -> str:
    import openpyxl

    workbook = office_open(lambda f: openpyxl.load_workbook(f, read_only=True, data_only=True), content)
    lines = []
    try:
        for sheet in workbook.worksheets:
            lines.append(sheet.title)
            for row in sheet.iter_rows(values_only=True):
                cells = [str(value) for value in row if value is not None]
                if cells:
                    lines.append("\t".join(cells))
    finally:
        workbook.close()
    return "\n".join(lines)


def pptx_read(content: bytes) -> str:
    import pptx

    presentation = office_open(pptx.Presentation, content)
    lines = []
    for slide in presentation.slides:
        lines.extend(_shape_texts(slide.shapes))
        notes = slide.notes_slide.notes_text_frame if slide.has_notes_slide else None
        if notes is not None:
            lines.append(notes.text)
    return "\n".join(line for line in lines if line.strip())


def _shape_texts(shapes: Iterable) -> Iterable[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_texts(shape.shapes)
        elif shape.has_text_frame:
            yield shape.text_frame.text
        elif shape.has_table:
            yield from ("\t".join(cell.text for cell in row.cells) for row in shape.table.rows)


READERS: dict[str, Callable[[bytes], str]] = {
    "txt": txt_read,
    "html": html_read,
    "rtf": rtf_read,
    "docx": docx_read,
    "xlsx": xlsx_read,
    "pptx": pptx_read,
}


def office_open(opener: Callable[[io.BytesIO], object], content: bytes):
    """Open an Office file with its library; when that fails, say whether a password is why (an
    encrypted Office file is a different container, which the library cannot open)."""
    try:
        return opener(io.BytesIO(content))
    except Exception:
        office_refuse_encrypted(content)
        raise


def office_refuse_encrypted(content: bytes) -> None:
    import msoffcrypto

    try:
        encrypted = msoffcrypto.OfficeFile(io.BytesIO(content)).is_encrypted()
    except Exception:  # not an Office container msoffcrypto knows: the caller's own error stands
        return
    if encrypted:
        raise ExtractionFailed("ACCESS_DENIED", "The file is password-protected.")


def legacy_read(*, kind: str, content: bytes) -> str:
    """Word 97, Excel 97 and PowerPoint 97 files: LibreOffice converts them to their Office Open
    XML successors, which the readers above then read."""
    office_refuse_encrypted(content)
    soffice = shutil.which("soffice")
    if soffice is None:
        raise ExtractionFailed(
            "PARSE_ERROR", f"LibreOffice (soffice) is not installed: .{kind} files need it."
        )
    target = LEGACY_TARGETS[kind]
    with tempfile.TemporaryDirectory(prefix="extract-") as work:
        source = Path(work, f"document.{kind}")
        source.write_bytes(content)
        # A profile of its own: concurrent conversions never share (and wait on) one.
        profile = f"-env:UserInstallation={Path(work, 'profile').as_uri()}"
        command = [soffice, profile, "--headless", "--norestore", "--convert-to", target, "--outdir", work]
        subprocess.run([*command, str(source)], stdin=subprocess.DEVNULL, capture_output=True, check=False)  # noqa: S603
        converted = source.with_suffix(f".{target}")
        if not converted.exists():
            raise ExtractionFailed("PARSE_ERROR", f"LibreOffice could not read the .{kind} file.")
        return READERS[target](converted.read_bytes())


def pdf_read(*, content: bytes, use_ocr: bool) -> str:
    from pypdf import PasswordType, PdfReader

    reader = PdfReader(io.BytesIO(content))
    # A PDF with only an owner password opens with the empty user password, as in any viewer.
    if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
        raise ExtractionFailed("ACCESS_DENIED", "The PDF is password-protected.")
    pages = []
    for page in reader.pages:
        text = page.extract_text()
        if not text.strip() and use_ocr:
            text = ocr_text(image.image for image in page.images)
        pages.append(text)
    text = "\n\n".join(page for page in pages if page.strip())
    if not text:
        raise ExtractionFailed(
            "OCR_FAILED",
            "OCR found no text in the scanned PDF."
            if use_ocr
            else "The PDF has no text layer and OCR is off.",
        )
    return text


def image_read(*, content: bytes) -> str:
    from PIL import Image

    text = ocr_text([Image.open(io.BytesIO(content))])
    if not text.strip():
        raise ExtractionFailed("OCR_FAILED", "OCR found no text in the image.")
    return text


def ocr_text(images: Iterable) -> str:
    import pytesseract
    from PIL import Image

    texts = []
    try:
        for image in images:
            # On white: a transparent background would otherwise turn black, under black text.
            rgba = image.convert("RGBA")
            flat = Image.alpha_composite(Image.new("RGBA", rgba.size, "white"), rgba).convert("RGB")
            texts.append(pytesseract.image_to_string(flat))
    except pytesseract.TesseractNotFoundError as error:
        raise ExtractionFailed("OCR_FAILED", "Tesseract is not installed: OCR is unavailable.") from error
    except pytesseract.TesseractError as error:
        raise ExtractionFailed("OCR_FAILED", f"Tesseract failed: {error.message}") from error
    return "\n".join(texts)
