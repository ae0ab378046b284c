"""The embedding registry: the hashing embedder, and the OpenAI-compatible backend against a real
loopback server (tests/fakes/embeddings.py). The local model has its own module."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from knowledge.embeddings import EmbeddingFailed, embedder
from tests.fakes.embeddings import FakeEmbeddingServer, error
from tests.fakes.server import Reply

KEY = "sk-test-0123456789abcdefSECRET"


def unit_rows(vectors: np.ndarray) -> bool:
    return np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


# ---- hash


def test_the_hash_embedder_gives_unit_float32_rows_one_per_text(settings):
    settings.EMBEDDING_BACKEND = "hash"
    vectors = embedder().embed(["reset a password", "", "Quarterly revenue"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, embedder().dimension)
    assert unit_rows(vectors)


def test_the_hash_embedder_is_deterministic_and_ranks_shared_words_closer(settings):
    settings.EMBEDDING_BACKEND = "hash"
    query, near, far = embedder().embed(["reset my password", "how to reset a password", "revenue grew"])
    assert np.array_equal(embedder().embed(["reset my password"])[0], query)
    assert float(query @ near) > float(query @ far)
    assert embedder().model.startswith("hash-")


def test_an_empty_list_embeds_to_no_rows(settings):
    settings.EMBEDDING_BACKEND = "hash"
    assert embedder().embed([]).shape == (0, embedder().dimension)


def test_an_unknown_backend_is_an_embedding_failure(settings):
    settings.EMBEDDING_BACKEND = "word2vec"
    with pytest.raises(EmbeddingFailed, match="EMBEDDING_BACKEND"):
        embedder()


# ---- openai


@pytest.fixture
def server(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    with FakeEmbeddingServer(api_key=KEY, dimension=8) as fake:
        settings.EMBEDDING_BACKEND = "openai"
        settings.EMBEDDING_URL = fake.url + "/v1"
        settings.EMBEDDING_MODEL = fake.model
        settings.EMBEDDING_API_KEY = KEY
        settings.EMBEDDING_TIMEOUT_S = 2.0
        yield fake


def test_it_embeds_through_the_server_in_input_order(server):
    vectors = embedder().embed(["alpha", "beta", "gamma"])
    expected = np.array([server.vector(t) for t in ("alpha", "beta", "gamma")], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert vectors.dtype == np.float32 and vectors.shape == (3, 8)
    assert np.allclose(vectors, expected, atol=1e-6)
    assert embedder().model == "fake-embed" and embedder().dimension == 8


def test_it_sends_the_model_the_texts_and_the_key_as_a_bearer(server):
    embedder().embed(["alpha", "beta"])
    (call,) = server.requests_to(r"/v1/embeddings")
    assert call.json() == {"model": "fake-embed", "input": ["alpha", "beta"]}
    assert call.headers["Authorization"] == f"Bearer {KEY}"


def test_it_sends_no_authorization_without_a_key(server, settings):
    server.api_key = None
    settings.EMBEDDING_API_KEY = None
    embedder().embed(["alpha"])
    assert "Authorization" not in server.requests_to(r"/v1/embeddings")[0].headers


def test_it_splits_the_texts_into_batches(server, settings):
    settings.EMBEDDING_BATCH_SIZE = 2
    vectors = embedder().embed(["a", "b", "c", "d", "e"])
    assert vectors.shape == (5, 8)
    assert [len(r.json()["input"]) for r in server.requests_to(r"/v1/embeddings")] == [2, 2, 1]


def test_it_retries_a_throttled_request(server):
    server.queue_reply(Reply(429, {"error": {"type": "rate_limit"}}, {"Retry-After": "0"}))
    assert embedder().embed(["alpha"]).shape == (1, 8)
    assert len(server.requests_to(r"/v1/embeddings")) == 2


def failure_of(texts=("alpha",)) -> str:
    with pytest.raises(EmbeddingFailed) as caught:
        embedder().embed(list(texts))
    return str(caught.value)


def test_a_refused_key_fails_without_repeating_the_key(server, settings, caplog):
    settings.EMBEDDING_API_KEY = "sk-wrong-key-0123456789"
    with caplog.at_level(logging.DEBUG):
        message = failure_of()
    assert message == "The embedding server answered 401 (invalid_api_key)."
    assert "sk-wrong" not in caplog.text and "sk-wrong" not in message


def test_an_unknown_model_names_the_servers_code(server, settings):
    settings.EMBEDDING_MODEL = "no-such-model"
    assert failure_of() == "The embedding server answered 404 (model_not_found)."


def test_a_server_error_fails(server):
    server.queue_reply(error(500, "boom", "server_error"))
    assert failure_of() == "The embedding server answered 500 (server_error)."


def test_an_error_without_a_json_body_fails_with_the_status(server):
    server.queue_reply(Reply(502, "<html>bad gateway</html>"))
    assert failure_of() == "The embedding server answered 502."


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        {"data": "nope"},
        {"data": [{"index": 0}]},
        {"data": []},
        {"data": [{"index": 0, "embedding": [1.0, "x"]}]},
    ],
)
def test_an_unreadable_answer_fails(server, body):
    server.queue_reply(Reply(200, body))
    assert "embedding server answered" in failure_of()


def test_a_wrong_number_of_vectors_fails(server):
    server.queue_reply(Reply(200, {"data": [{"index": 0, "embedding": [1.0, 0.0]}]}))
    assert failure_of(["a", "b"]) == "The embedding server answered 1 vectors for 2 texts."


def test_a_silent_server_times_out(server, settings):
    settings.EMBEDDING_TIMEOUT_S = 0.2
    server.latency = 1.0
    assert failure_of() == "The embedding server did not answer in time."


def test_an_unreachable_server_fails(server, settings):
    server.stop()
    assert failure_of() == "The embedding server could not be reached."


def test_the_outbound_guard_applies_to_the_server(server, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    assert failure_of().startswith("The outbound guard refused EMBEDDING_URL")
    assert server.requests_to(".*") == []
