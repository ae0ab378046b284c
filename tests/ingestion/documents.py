"""Test documents of every supported kind, made with the same libraries that read them (and with
fpdf2 for PDFs, Pillow for images, msoffcrypto-tool for encryption, LibreOffice for the legacy
Office formats). Each takes the text to put in and returns the file's bytes."""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import docx
import openpyxl
import pptx
from fpdf import FPDF
from msoffcrypto.format.ooxml import OOXMLFile
from PIL import Image, ImageDraw, ImageFont
from pptx.util import Inches
from pypdf import PdfReader, PdfWriter


def docx_bytes(paragraph: str, table: list[list[str]] | None = None) -> bytes:
    document = docx.Document()
    document.add_paragraph(paragraph)
    for row in table or []:
        cells = document.add_table(rows=1, cols=len(row)).rows[0].cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    return _saved(document)


def xlsx_bytes(sheets: dict[str, list[list[object]]]) -> bytes:
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for title, rows in sheets.items():
        sheet = workbook.create_sheet(title)
        for row in rows:
            sheet.append(row)
    return _saved(workbook)


def pptx_bytes(title: str, body: str, notes: str = "", table: list[list[str]] | None = None) -> bytes:
    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])  # "Title Only"
    slide.shapes.title.text = title
    slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = body
    if table:
        shape = slide.shapes.add_table(len(table), len(table[0]), Inches(1), Inches(4), Inches(6), Inches(1))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                shape.table.cell(r, c).text = value
    if notes:
        slide.notes_slide.notes_text_frame.text = notes
    return _saved(presentation)


def pdf_bytes(text: str) -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=14)
    pdf.multi_cell(0, 10, text)
    return bytes(pdf.output())


def scanned_pdf_bytes(text: str) -> bytes:
    """A PDF whose page is a picture of the text, with no text layer (as a scanner makes them)."""
    pdf = FPDF()
    pdf.add_page()
    pdf.image(text_image(text).convert("RGB"), x=10, y=10, w=190)
    return bytes(pdf.output())


def encrypted_pdf_bytes(text: str, *, user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(text))))
    writer.encrypt(user_password=user_password, owner_password="owner-only", algorithm="AES-256")
    return _saved(writer, method="write")


def encrypted_docx_bytes(paragraph: str, *, password: str) -> bytes:
    encrypted = io.BytesIO()
    OOXMLFile(io.BytesIO(docx_bytes(paragraph))).encrypt(password, encrypted)
    return encrypted.getvalue()


def text_image(text: str, *, background: str | tuple = "white") -> Image.Image:
    image = Image.new("RGBA", (1400, 200), background)
    ImageDraw.Draw(image).text((40, 50), text, fill="black", font=ImageFont.load_default(size=64))
    return image


def image_bytes(image: Image.Image, image_format: str) -> bytes:
    if image_format in ("JPEG", "BMP", "GIF"):
        image = image.convert("RGB")
    return _saved(image, format=image_format)


def docx_bomb_bytes(paragraphs: int) -> bytes:
    """A small .docx that unpacks to a very large document: the same paragraph many times over."""
    source = zipfile.ZipFile(io.BytesIO(docx_bytes("seed")))
    body = "<w:p><w:r><w:t>ballast words fill the page</w:t></w:r></w:p>" * paragraphs
    document = (
        source.read("word/document.xml").decode().replace("<w:p><w:r><w:t>seed</w:t></w:r></w:p>", body)
    )
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            target.writestr(item, document if item.filename == "word/document.xml" else source.read(item))
    return packed.getvalue()


def legacy_bytes(modern: dict[str, bytes]) -> dict[str, bytes]:
    """LibreOffice's Word 97, Excel 97 and PowerPoint 97 versions of {"docx": ..., "xlsx": ...,
    "pptx": ...}, keyed "doc", "xls", "ppt"."""
    soffice = shutil.which("soffice")
    assert soffice, "LibreOffice is missing: run bin/ensure-extractors"
    converted = {}
    with tempfile.TemporaryDirectory() as work:
        profile = f"-env:UserInstallation={Path(work, 'profile').as_uri()}"
        for extension, content in modern.items():
            source = Path(work, f"fixture.{extension}")
            source.write_bytes(content)
            legacy = extension.removesuffix("x")
            command = [soffice, profile, "--headless", "--convert-to", legacy, "--outdir", work, str(source)]
            subprocess.run(command, check=True, capture_output=True, stdin=subprocess.DEVNULL)
            converted[legacy] = source.with_suffix(f".{legacy}").read_bytes()
    return converted


def _saved(document, method: str = "save", **options) -> bytes:
    buffer = io.BytesIO()
    getattr(document, method)(buffer, **options)
    return buffer.getvalue()
