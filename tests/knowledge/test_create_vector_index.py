"""`manage.py create_vector_index DIMENSION` gives another embedding model's dimension an index."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from identity.sources import ALL_KNOWLEDGE
from knowledge.models import Chunk
from knowledge.vectors.ranking import hnsw_index
from knowledge.vectors.store import chunks_search
from tests.factories import make_document


def run(*args) -> str:
    out = StringIO()
    call_command("create_vector_index", *args, stdout=out)
    return out.getvalue().strip()


@pytest.fixture
def index_16_dropped_afterwards():
    """The test database is kept between tests: the index built here does not outlive the test."""
    yield
    if connection.vendor == "postgresql":
        with connection.schema_editor() as editor:
            editor.remove_index(Chunk, hnsw_index(16))


@pytest.mark.django_db(transaction=True)
def test_it_builds_an_index_once_and_search_goes_on(tenant, index_16_dropped_afterwards):
    vectors = np.eye(16, dtype=np.float32)
    make_document(tenant, [(f"passage {i}", v) for i, v in enumerate(vectors)], model="wide-model")
    first, second = run("16"), run("16")
    assert (first, second) == (
        ("created", "nothing to do")
        if connection.vendor == "postgresql"
        else ("nothing to do", "nothing to do")
    )
    hits = chunks_search(
        tenant=tenant, vector=vectors[5], model="wide-model", top_k=1, identities=ALL_KNOWLEDGE
    )
    assert [hit.chunk for hit in hits] == ["passage 5"]


@pytest.mark.parametrize("dimension", ["0", "2001"])
def test_it_refuses_a_dimension_pgvector_cannot_index(db, dimension):
    with pytest.raises(CommandError):
        run(dimension)
