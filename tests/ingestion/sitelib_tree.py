"""The fixture tree the ingestion tests ingest: a site whose drive holds good documents of several
kinds, the files that go wrong in each documented way, and (on request) many small good files."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.fakes.graph import FakeGraph
from tests.ingestion.documents import docx_bytes

SITE_PATH = "/sites/handbook"
MB = 1024 * 1024

# name -> (words a search for it uses, content)
GOOD = {
    "Welcome.txt": (
        "cafeteria opens eight",
        b"Welcome to Contoso. The cafeteria opens at eight every weekday.",
    ),
    "Travel.docx": ("economy flights trips", docx_bytes("Book economy flights for trips under six hours.")),
    "Expenses.html": (
        "receipts thirty days",
        b"<html><body><h1>Expenses</h1><p>Submit receipts within thirty days.</p></body></html>",
    ),
    "Parking.rtf": (
        "parking garage badge",
        rb"{\rtf1\ansi Use your badge at the parking garage on level two.}",
    ),
}
# name -> the error type its failure is recorded under
FAILING = {
    "stalled.txt": "TIMEOUT",
    "denied.docx": "ACCESS_DENIED",
    "corrupt.pdf": "PARSE_ERROR",
    "oversized.pdf": "FILE_TOO_LARGE",
    "clip.mp4": "UNSUPPORTED_FORMAT",
}


@dataclass
class Tree:
    site: object
    drive: object
    items: dict[str, dict] = field(default_factory=dict)  # file name -> the fake's item

    @property
    def site_url(self) -> str:
        return self.site.web_url

    def good_names(self) -> list[str]:
        return [name for name in self.items if name not in FAILING]


def build(graph: FakeGraph, *, fillers: int = 0, stall_s: float = 5.0) -> Tree:
    """/sites/handbook, drive "Documents": Welcome.txt at the root; Policies/ with Travel.docx and
    Expenses.html; Policies/Facilities/Parking.rtf; Troubles/ with the five failing files; and
    `fillers` small text files under Notes/."""
    site = graph.add_site(SITE_PATH, "Handbook")
    drive = graph.add_drive(site, "Documents")
    tree = Tree(site=site, drive=drive)
    policies = graph.add_folder(drive, "Policies")
    facilities = graph.add_folder(drive, "Facilities", parent=policies)
    troubles = graph.add_folder(drive, "Troubles")
    where = {
        "Welcome.txt": None,
        "Travel.docx": policies,
        "Expenses.html": policies,
        "Parking.rtf": facilities,
    }
    for name, (_, data) in GOOD.items():
        tree.items[name] = graph.add_file(drive, name, data, parent=where[name])
    tree.items.update(
        graph.add_troublesome_files(drive, oversized_bytes=60 * MB, stall_s=stall_s, parent=troubles)
    )
    tree.items = {item["name"]: item for item in tree.items.values()}
    tree.items["clip.mp4"] = graph.add_file(drive, "clip.mp4", b"\x00\x00\x00\x18ftypmp42", parent=troubles)
    if fillers:
        notes = graph.add_folder(drive, "Notes")
        for n in range(fillers):
            name = f"note-{n:03d}.txt"
            tree.items[name] = graph.add_file(
                drive, name, f"Meeting note {n}: item{n} decided.".encode(), parent=notes
            )
    return tree
