"""A fake OpenAI-compatible embedding server: `POST /v1/embeddings` with `{model, input}` answers
`{object: "list", data: [{object: "embedding", index, embedding}], model, usage}`, in reverse index
order (a client must sort by `index`). Errors in OpenAI's shape `{"error": {message, type, code}}`;
a wrong key gets 401 with a message that quotes part of the key, as the real service does."""

from __future__ import annotations

import hashlib

from tests.fakes.server import FakeVendor, Received, Reply, route


class FakeEmbeddingServer(FakeVendor):
    def __init__(self, *, api_key: str | None = None, model: str = "fake-embed", dimension: int = 8, **kw):
        super().__init__(**kw)
        self.api_key = api_key
        self.model = model
        self.dimension = dimension

    def vector(self, text: str) -> list[float]:
        """The (unnormalised) vector this server answers for `text`."""
        digest = hashlib.sha256(text.encode()).digest()
        return [digest[i] - 127.5 for i in range(self.dimension)]

    @route("POST", r"/v1/embeddings")
    def embeddings(self, request: Received) -> Reply:
        sent = request.headers.get("Authorization", "")
        if self.api_key and sent != f"Bearer {self.api_key}":
            return error(
                401,
                f"Incorrect API key provided: {sent[7:15]}***.",
                "invalid_request_error",
                "invalid_api_key",
            )
        body = request.json()
        if body.get("model") != self.model:
            return error(
                404,
                f"The model `{body.get('model')}` does not exist.",
                "invalid_request_error",
                "model_not_found",
            )
        texts = body["input"]
        data = [{"object": "embedding", "index": i, "embedding": self.vector(t)} for i, t in enumerate(texts)]
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        return Reply(200, {"object": "list", "data": data[::-1], "model": self.model, "usage": usage})


def error(status: int, message: str, kind: str, code: str | None = None) -> Reply:
    return Reply(status, {"error": {"message": message, "type": kind, "param": None, "code": code}})
