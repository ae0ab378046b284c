"""The embedding column, stored the way each database can search it (DESIGN section 15).

PostgreSQL: pgvector's `vector` type without a fixed dimension (models of different dimensions
share the column; each dimension has its own partial HNSW index, see `knowledge.vectors`).
SQLite: the little-endian float32 bytes, which `knowledge.vectors` scores with numpy.
"""

from __future__ import annotations

import numpy as np
from django.db import models
from pgvector import Vector

FLOAT32 = np.dtype("<f4")


class EmbeddingField(models.Field):
    """A 1-D float32 numpy array."""

    description = "Embedding (float32 vector)"
    empty_strings_allowed = False

    def db_type(self, connection) -> str:
        return "vector" if connection.vendor == "postgresql" else "blob"

    def get_db_prep_value(self, value, connection, prepared=False):
        if value is None:
            return None
        array = np.asarray(value, dtype=FLOAT32)
        if connection.vendor == "postgresql":
            return Vector(array).to_text()
        return array.tobytes()

    def from_db_value(self, value, expression, connection):
        if value is None:
            return None
        if connection.vendor == "postgresql":
            return Vector.from_text(value).to_numpy()
        return np.frombuffer(value, dtype=FLOAT32)
