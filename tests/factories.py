"""Plain factory functions: each makes one real row the way the service would."""

from __future__ import annotations

import itertools

from core.audit import system_actor
from core.models import Tenant
from identity.models import ApiKey, Membership, User
from identity.services.users import api_key_create

_counter = itertools.count(1)
PASSWORD = "correct horse battery staple"  # tests use a fast hasher (conftest)


def make_tenant(name: str | None = None, **fields) -> Tenant:
    return Tenant.objects.create(name=name or f"tenant-{next(_counter)}", **fields)


def make_user(tenant: Tenant | None, roles: list[str], *, username: str | None = None, **fields) -> User:
    user = User.objects.create_user(
        username=username or f"user-{next(_counter)}",
        password=PASSWORD,
        email=fields.pop("email", ""),
        **fields,
    )
    if tenant is not None:
        Membership.objects.create(user=user, tenant=tenant, roles=roles)
    return user


def make_super_admin(**fields) -> User:
    return make_user(None, [], is_superuser=True, is_staff=True, **fields)


def make_api_key(tenant: Tenant, scopes: list[str] | None = None, **fields) -> tuple[ApiKey, str]:
    return api_key_create(
        tenant=tenant,
        name=fields.pop("name", f"key-{next(_counter)}"),
        scopes=["*"] if scopes is None else scopes,
        actor=system_actor("tests"),
        **fields,
    )


def make_document(tenant: Tenant, chunks: list, **fields):
    """A document of the tenant's knowledge base stored through the vector store; `chunks` are
    (text, vector) pairs. Returns what `document_upsert` returns."""
    from knowledge.vectors.store import document_upsert

    number = next(_counter)
    values = {
        "platform_type": "sitelib",
        "content_type": "sitelib_attachment",
        "source_id": f"item-{number}",
        "source_url": f"https://contoso.sitelib.test/sites/docs/Shared/file-{number}.docx",
        "title": f"File {number}",
        "content_hash": f"{number:064x}",
        "audience": ["all"],
        "readers": ["everyone"],
        "metadata": {},
        "sync_configuration_id": None,
        "model": "test-model",
    }
    return document_upsert(tenant=tenant, chunks=chunks, **{**values, **fields})


def make_searchable_document(tenant: Tenant, passages: list[str], **fields):
    """A document whose passages are embedded by the configured embedder, so that search finds it."""
    from knowledge.embeddings import embedder

    model = embedder()
    chunks = list(zip(passages, model.embed(passages), strict=True))
    return make_document(tenant, chunks, model=model.model, **fields)[0]
