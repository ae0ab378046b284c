"""The knowledge tests' loopback fakes (identity platform over HTTPS, document-site API), reused."""

from tests.knowledge.conftest import app_certificate, graph, identity, platforms_reachable  # noqa: F401
