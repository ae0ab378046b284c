"""The local embedding model loads in the background when a process starts: the process answers
at once, and /health says `degraded`, with the reason, until the model is loaded (or says why it
could not be)."""

from __future__ import annotations

import threading

import pytest

from knowledge import embeddings


@pytest.fixture
def slow_model(settings, monkeypatch):
    """The local backend, whose load waits for `release` (the real one takes seconds)."""
    settings.EMBEDDING_BACKEND = "local"
    release = threading.Event()

    class Loaded:
        def get_embedding_dimension(self) -> int:
            return 384

    def load(model_dir):
        assert release.wait(30)
        return Loaded()

    monkeypatch.setattr(embeddings, "_load_local_model", load)
    monkeypatch.setattr(embeddings, "_embedders", {})  # nothing loaded yet, and nothing kept after
    monkeypatch.setattr(embeddings, "_warm_up", embeddings._WarmUp())
    return release


def test_health_says_degraded_with_the_reason_until_the_model_is_loaded(db, anon, slow_model):
    loading = embeddings.embedding_model_warm_up()
    answer = anon.get("/health")
    assert answer.status_code == 200 and answer.json()["status"] == "degraded"
    assert answer.json()["issues"][0]["service"] == "embeddings"
    assert answer.json()["issues"][0]["message"].startswith("The embedding model is loading")
    slow_model.set()
    loading.join(30)
    answer = anon.get("/health")
    assert answer.json()["status"] == "healthy" and "issues" not in answer.json()


def test_health_says_why_the_model_could_not_be_loaded(db, anon, slow_model, monkeypatch):
    def broken(model_dir):
        raise embeddings.EmbeddingFailed("The embedding model's weights cannot be read at /nowhere.")

    monkeypatch.setattr(embeddings, "_load_local_model", broken)
    embeddings.embedding_model_warm_up().join(30)
    issue = anon.get("/api/v1/health").json()["issues"][0]
    assert issue["message"] == (
        "The embedding model could not be loaded: The embedding model's weights cannot be read at "
        "/nowhere. Searches fail until it is."
    )


def test_a_process_loads_it_once_and_other_backends_have_nothing_to_load(settings, slow_model):
    first = embeddings.embedding_model_warm_up()
    assert embeddings.embedding_model_warm_up() is None
    slow_model.set()
    first.join(30)
    settings.EMBEDDING_BACKEND = "hash"
    embeddings._warm_up = embeddings._WarmUp()
    assert embeddings.embedding_model_warm_up() is None
