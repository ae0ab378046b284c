"""Removing what came from a source (DESIGN section 15): every document under a URL prefix, or
every document whose metadata names a knowledge base, space or the like. The same tests run on
SQLite and on PostgreSQL."""

from __future__ import annotations

import numpy as np
import pytest

from knowledge.models import Document
from knowledge.vectors.store import chunks_count, documents_delete_by_url_prefix, documents_delete_where
from tests.factories import make_document

ARTICLE = "https://acme.itsm.test/kb_view.do?sysparm_article=KB0010001"


def vectors(n: int) -> list[np.ndarray]:
    return list(np.eye(n, 4, dtype=np.float32) + 0.1)


def index(tenant, source_url: str, chunks: int = 1, **fields) -> Document:
    passages = [(f"passage {i}", v) for i, v in enumerate(vectors(chunks))]
    return make_document(tenant, passages, source_url=source_url, **fields)[0]


def urls_of(tenant) -> list[str]:
    return sorted(Document.objects.filter(tenant=tenant).values_list("source_url", flat=True))


def test_a_prefix_covers_the_item_its_children_its_views_and_its_parts(tenant):
    for url in [
        "https://x.test/a",
        "https://x.test/a/b",
        "https://x.test/a?preview=1",
        "https://x.test/a#att-1",
    ]:
        index(tenant, url)
    index(tenant, "https://x.test/ab")
    index(tenant, "https://x.test/a-archive/c")
    assert documents_delete_by_url_prefix(tenant=tenant, prefix="https://x.test/a") == (4, 4)
    assert urls_of(tenant) == ["https://x.test/a-archive/c", "https://x.test/ab"]


def test_an_article_link_with_a_query_covers_its_attachments_but_not_a_longer_number(tenant):
    index(tenant, ARTICLE, chunks=2)
    index(tenant, f"{ARTICLE}#att-1")
    index(tenant, f"{ARTICLE}2")
    index(tenant, f"{ARTICLE}&sysparm_language=de")
    prefix = "https://ACME.itsm.test/kb_view.do?sysparm_article=kb0010001"  # in any case
    assert documents_delete_by_url_prefix(tenant=tenant, prefix=prefix) == (2, 3)
    assert urls_of(tenant) == [f"{ARTICLE}&sysparm_language=de", f"{ARTICLE}2"]


def test_a_prefix_with_a_trailing_slash_still_covers_its_views(tenant):
    index(tenant, "https://x.test/a?preview=1")
    index(tenant, "https://x.test/a/")
    assert documents_delete_by_url_prefix(tenant=tenant, prefix="https://x.test/a/") == (2, 2)


@pytest.fixture
def articles(tenant, other_tenant):
    """Knowledge articles of three knowledge bases, a wiki page that names one in its metadata,
    and another tenant's article of the first knowledge base."""
    itsm = {"platform_type": "itsmplatform", "content_type": "itsmplatform_article"}
    index(tenant, "https://acme.itsm.test/kb/1", chunks=2, metadata={"kb_sys_id": "kb-1"}, **itsm)
    index(tenant, "https://acme.itsm.test/kb/2", metadata={"kb_sys_id": "kb-2", "lang": "en"}, **itsm)
    index(tenant, "https://acme.itsm.test/kb/3", metadata={"kb_sys_id": "kb-3"}, **itsm)
    index(tenant, "https://acme.itsm.test/kb/4", metadata={}, **itsm)
    index(
        tenant,
        "https://wiki.test/spaces/IT/pages/1",
        metadata={"kb_sys_id": "kb-1"},
        platform_type="wikispace",
        content_type="wikispace_article",
    )
    index(other_tenant, "https://globex.itsm.test/kb/1", metadata={"kb_sys_id": "kb-1"}, **itsm)


def test_documents_leave_by_a_metadata_value_of_their_platform(tenant, other_tenant, articles):
    deleted = documents_delete_where(
        tenant=tenant, platform_type="itsmplatform", key="kb_sys_id", values=["kb-1", "kb-2"]
    )
    assert deleted == (2, 3)
    assert urls_of(tenant) == [
        "https://acme.itsm.test/kb/3",
        "https://acme.itsm.test/kb/4",
        "https://wiki.test/spaces/IT/pages/1",
    ]
    assert urls_of(other_tenant) == ["https://globex.itsm.test/kb/1"]
    assert chunks_count(tenant=other_tenant) == 1


def test_no_values_delete_nothing(tenant, articles):
    deleted = documents_delete_where(tenant=tenant, platform_type="itsmplatform", key="kb_sys_id", values=[])
    assert deleted == (0, 0)
    assert len(urls_of(tenant)) == 5


@pytest.mark.parametrize("key", ["contains", "in", "exact", "has_key", "_kb", "kb_2"])
def test_a_key_named_like_a_lookup_is_still_a_key(tenant, key):
    index(tenant, "https://acme.itsm.test/kb/1", metadata={key: "kb-1"})
    index(tenant, "https://acme.itsm.test/kb/2", metadata={key: "kb-2"})
    assert documents_delete_where(tenant=tenant, platform_type="sitelib", key=key, values=["kb-1"]) == (1, 1)
    assert urls_of(tenant) == ["https://acme.itsm.test/kb/2"]


@pytest.mark.parametrize(
    ("key", "values"),
    [
        ("kb_sys_id__contains", ["kb-1"]),  # a lookup, not a key
        ("kb-sys-id", ["kb-1"]),
        ("", ["kb-1"]),
        ("1kb", ["kb-1"]),
        ("kb_sys_id", "kb-1"),  # one string, not a list of them
        ("kb_sys_id", [1]),
    ],
)
def test_it_refuses_a_key_that_is_not_an_identifier_or_values_that_are_not_strings(
    tenant, articles, key, values
):
    with pytest.raises(ValueError):
        documents_delete_where(tenant=tenant, platform_type="itsmplatform", key=key, values=values)
    assert len(urls_of(tenant)) == 5
