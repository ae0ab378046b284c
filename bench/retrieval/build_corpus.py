"""Build `bench/retrieval/corpus.jsonl` from the documentation inside Django's source
distribution (BSD-3-Clause; see README.md beside this file).

    .venv/bin/pip download --no-deps --no-binary :all: Django==5.2.19 -d /tmp/django-sdist
    tar xzf /tmp/django-sdist/django-5.2.19.tar.gz -C /tmp/django-sdist
    .venv/bin/python -m bench.retrieval.build_corpus /tmp/django-sdist/django-5.2.19

The reStructuredText is turned into plain text the way the rendered pages read (roles to their
text, `:ticket:` to `#12345`, `:cve:` to `CVE-...`, directives to their arguments), and split into
documents: one per section of a page, one per check of the system-check reference (a knowledge
base of error codes: many short, similar articles) and one per entry of the security archive.
Each line of the output is `{"id", "title", "url", "text"}`; `id` is `<page>#<section slug>`.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "corpus.jsonl"
BASE_URL = "https://docs.djangoproject.com/en/5.2/"

PAGES = [
    "faq/*.txt",
    "howto/*.txt",
    "howto/*/*.txt",
    "howto/*/*/*.txt",
    "topics/auth/*.txt",
    "topics/http/*.txt",
    "topics/cache.txt",
    "topics/email.txt",
    "topics/security.txt",
    "topics/signals.txt",
    "topics/logging.txt",
    "topics/pagination.txt",
    "topics/files.txt",
    "topics/signing.txt",
    "topics/conditional-view-processing.txt",
    "topics/settings.txt",
    "topics/async.txt",
    "topics/performance.txt",
    "topics/checks.txt",
    "topics/migrations.txt",
    "topics/serialization.txt",
    "releases/4.2.*.txt",
    "releases/5.0.*.txt",
    "releases/5.1.*.txt",
    "releases/5.2.*.txt",
]
CHECKS = "ref/checks.txt"  # one document per check
SECURITY = "releases/security.txt"  # one document per entry
SKIP = {"index.txt"}
SEPARATOR = " \u203a "  # between a page's title and its section headings

UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>_:.])\1{2,}\s*$")
ROLE = re.compile(r":(?:[a-z]+:)?([a-z]+):`([^`]+)`")
LINK = re.compile(r"`([^`<]+?)\s*<[^`>]+>`__?")
DIRECTIVE = re.compile(r"^(\s*)\.\. ([a-z:-]+)::\s*(.*)$")
CHECK = re.compile(r"^\* \*\*([A-Za-z_]+\.[A-Z]\d+)\*\*:?\s*(.*)$")
DROPPED = {"toctree", "image", "figure", "index", "currentmodule", "module", "highlight", "glossary"}
NAMED = {"note": "Note:", "warning": "Warning:", "seealso": "See also:", "tip": "Tip:", "hint": "Hint:"}
NAMED |= {"important": "Important:", "caution": "Caution:"}


def role_text(match: re.Match) -> str:
    role, text = match.group(1), match.group(2).strip()
    if role == "ticket":
        return f"#{text}"
    if role == "cve":
        return f"CVE-{text}"
    label = re.match(r"(.*?)\s*<[^>]+>$", text)
    if label:
        return label.group(1)
    if role == "commit":
        return text[:10]
    text = text.lstrip("!")
    return text.rsplit(".", 1)[-1] if text.startswith("~") else text


def inline(text: str) -> str:
    text = ROLE.sub(role_text, text)
    text = LINK.sub(r"\1", text)
    text = text.replace("``", "").replace("**", "")
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"\1", text)
    text = re.sub(r"\|([\w-]+)\|", r"\1", text)
    return text.replace("::", ":")


def directive_line(indent: str, name: str, argument: str) -> tuple[str | None, bool]:
    """The text a directive line becomes, and whether its indented body is dropped."""
    if name in DROPPED or name.startswith("_"):
        return None, True
    if name in ("code-block", "code", "console", "parsed-literal"):
        return None, False
    if name in NAMED:
        return indent + NAMED[name] + (" " + argument if argument else ""), False
    if name in ("versionadded", "versionchanged"):
        word = "New" if name == "versionadded" else "Changed"
        return f"{indent}{word} in Django {argument}.", False
    if name == "deprecated":
        return f"{indent}Deprecated since Django {argument}.", False
    return (indent + argument if argument else None), False


def plain_lines(source: str) -> list[str]:
    """The page's lines as plain text; headings keep their own line, underlines are dropped and a
    heading is marked by a trailing "\\0<level char>"."""
    lines = source.splitlines()
    out: list[str] = []
    skip_indent: int | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if skip_indent is not None:
            if line.strip() and len(line) - len(line.lstrip()) <= skip_indent:
                skip_indent = None
            else:
                i += 1
                continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if UNDERLINE.match(line) and i + 2 < len(lines) and UNDERLINE.match(lines[i + 2]):
            out.append(inline(nxt.strip()) + "\0" + line.strip()[0] * 2)
            i += 3
            continue
        if line.strip() and UNDERLINE.match(nxt) and not UNDERLINE.match(line):
            out.append(inline(line.strip()) + "\0" + nxt.strip()[0])
            i += 2
            continue
        directive = DIRECTIVE.match(line)
        if directive:
            indent, name, argument = directive.groups()
            text, drop = directive_line(indent, name, inline(argument))
            if drop:
                skip_indent = len(indent)
            elif text is not None:
                out.append(text)
            i += 1
            continue
        if line.lstrip().startswith(".. "):  # comments, link targets, substitutions
            i += 1
            continue
        if (
            line.lstrip().startswith(":")
            and re.match(r"^\s*:[a-z-]+:", line)
            and not ROLE.match(line.strip())
        ):
            i += 1  # a directive's options
            continue
        out.append(inline(line))
        i += 1
    return out


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "top"


def sections(page: str, source: str, *, merge: bool = True) -> list[dict]:
    """One document per section with text; with `merge`, a section shorter than 300 characters
    joins the next."""
    lines = plain_lines(source)
    page_title, levels, path = None, [], []
    documents, body, carry = [], [], ""

    def close():
        nonlocal body, carry
        text = tidy("\n".join(body))
        body = []
        if not text:
            return
        if len(text) < 300 and not documents and not path:
            carry = text + "\n\n"
            return
        heading = SEPARATOR.join([page_title or page, *path[1:]]) if path else page_title or page
        documents.append(
            {
                "id": f"{page}#{slug(path[-1]) if len(path) > 1 else 'top'}",
                "title": heading,
                "url": f"{BASE_URL}{page}/" + (f"#{slug(path[-1])}" if len(path) > 1 else ""),
                "text": carry + text,
            }
        )
        carry = ""

    for line in lines:
        if "\0" in line:
            text, mark = line.split("\0")
            close()
            if mark not in levels:
                levels.append(mark)
            level = levels.index(mark)
            path = [*path[:level], text]
            page_title = page_title or text
            continue
        body.append(line)
    close()
    return merge_small(documents) if merge else documents


def merge_small(documents: list[dict]) -> list[dict]:
    merged: list[dict] = []
    for document in documents:
        if merged and len(merged[-1]["text"]) < 300:
            previous = merged.pop()
            document = document | {"text": previous["text"] + "\n\n" + document["text"]}
        merged.append(document)
    return merged


def tidy(text: str) -> str:
    text = LINK.sub(r"\1", text)  # links that span lines
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


def checks(source: str) -> list[dict]:
    """One document per check id: `* **admin.E108**: ...` and its continuation lines."""
    documents, current, section = [], None, ""
    for line in plain_lines(source):
        if "\0" in line:
            section = line.split("\0")[0]
            continue
        match = CHECK.match(line.replace("**", "**", 1)) if line.startswith("* ") else None
        raw = re.match(r"^\* ([A-Za-z_]+\.[A-Z]\d+):?\s*(.*)$", line)
        if match or raw:
            check_id, text = (match or raw).groups()
            current = {
                "id": f"ref/checks#{check_id.lower()}",
                "title": f"System check framework{SEPARATOR}{section}",
                "url": f"{BASE_URL}ref/checks/#{slug(section)}",
                "text": f"{check_id}: {text.strip()}",
            }
            documents.append(current)
        elif current is not None and line.startswith("  ") and line.strip():
            current["text"] += " " + line.strip()
        else:
            current = None
    return documents


def build(root: Path) -> list[dict]:
    docs = root / "docs"
    documents: list[dict] = []
    seen: set[Path] = set()
    for pattern in PAGES:
        for path in sorted(docs.glob(pattern)):
            if path.name in SKIP or path in seen:
                continue
            seen.add(path)
            page = str(path.relative_to(docs).with_suffix(""))
            documents += sections(page, path.read_text(encoding="utf-8"))
    documents += checks((docs / CHECKS).read_text(encoding="utf-8"))
    security = sections("releases/security", (docs / SECURITY).read_text(encoding="utf-8"), merge=False)
    documents += [d for d in security if "CVE-" in d["title"]]
    unique: dict[str, dict] = {}
    for document in documents:
        key, n = document["id"], 2
        while key in unique:
            key, n = f"{document['id']}-{n}", n + 1
        unique[key] = document | {"id": key}
    return list(unique.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("django_sdist", type=Path, help="the unpacked Django-5.2.19 source distribution")
    args = parser.parse_args()
    documents = build(args.django_sdist)
    with OUTPUT.open("w", encoding="utf-8") as out:
        for document in documents:
            out.write(json.dumps(document, ensure_ascii=False) + "\n")
    print(f"{len(documents)} documents, {sum(len(d['text']) for d in documents):,} characters -> {OUTPUT}")


if __name__ == "__main__":
    main()
