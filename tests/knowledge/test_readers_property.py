"""Trimming by source permissions, checked against a plain-Python oracle (DESIGN section 19).

Hypothesis draws worlds: users, groups, who is in which group, documents whose readers name
people, groups and everyone, and callers (realm users with their token's groups, keys with and
without knowledge:all) asking in each search mode with a page size and an audience. Every answer
of the real search (`knowledge.selectors.documents_search`'s store query, on SQLite or PostgreSQL
as the run is configured) must show no document the caller may not read, lose none it may, and
fill its page. EXAMPLES worlds of CALLERS callers each: 10,000 cases."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.principals import Principal
from core.readers import PLATFORMS
from identity.models import IdentityRealm
from identity.sources import source_identities
from knowledge.vectors.store import HYBRID, KEYWORD, SEARCH_MODES, SEMANTIC, chunks_search
from tests.factories import make_document

EXAMPLES = 500
CALLERS = 20
USERS = [f"u{n}@acme.test" for n in range(6)]
GROUPS = [f"g{n}" for n in range(6)]
DIMENSION = 4
WORD = "lighthouse"  # every document holds it, so every mode can rank every readable document


class Rollback(Exception):
    """Ends an example's transaction: each world starts from an empty knowledge base."""


principals = st.one_of(
    st.just("everyone"),
    st.sampled_from(USERS).map(lambda email: f"user:{email}"),
    st.tuples(st.sampled_from(PLATFORMS), st.sampled_from(GROUPS)).map(lambda p: f"group:{p[0]}:{p[1]}"),
)
documents = st.lists(
    st.tuples(
        st.lists(principals, max_size=4),  # readers ([]: its permissions could not be read)
        st.sampled_from([["all"], ["finance"], ["hr", "finance"]]),  # audience
        st.lists(st.integers(-3, 3), min_size=DIMENSION, max_size=DIMENSION),  # its embedding
    ),
    max_size=10,
)
callers = st.tuples(
    st.one_of(
        st.tuples(st.just("realm_user"), st.sampled_from(USERS)),
        st.tuples(st.just("api_key"), st.sampled_from(["knowledge:read", "knowledge:all", "*"])),
    ),
    st.sampled_from(SEARCH_MODES),
    st.integers(1, 12),  # top_k
    st.sampled_from([None, ["finance"], ["legal"], []]),  # audience
)
worlds = st.fixed_dictionaries(
    {
        # memberships: each user's groups, as their token's groups claim names them
        "memberships": st.fixed_dictionaries(
            {u: st.sets(st.sampled_from(GROUPS), max_size=3) for u in USERS}
        ),
        "documents": documents,
        "callers": st.lists(callers, min_size=CALLERS, max_size=CALLERS),
    }
)


def principal_of(tenant, caller, memberships) -> Principal:
    kind, who = caller
    if kind == "api_key":
        return Principal(kind="api_key", id=who, name=who, tenant_id=tenant.id, scopes=frozenset({who}))
    return Principal(
        kind="realm_user",
        id=who,
        name=who,
        email=who,
        tenant_id=tenant.id,
        realm="corp",
        realm_groups=frozenset(memberships[who]),
    )


def may_read(caller, memberships, readers) -> bool:
    """The oracle: what the caller may read at the source, in plain Python."""
    kind, who = caller
    if kind == "api_key":
        return who != "knowledge:read" or "everyone" in readers
    mine = {"everyone", f"user:{who}"} | {f"group:{p}:{g}" for p in PLATFORMS for g in memberships[who]}
    return bool(mine & set(readers))


def narrowed(audience, document_audience) -> bool:
    return audience is None or "all" in document_audience or bool(set(audience) & set(document_audience))


def vector(values) -> np.ndarray:
    array = np.asarray(values, dtype=np.float32)
    return array if array.any() else np.ones(DIMENSION, dtype=np.float32)


@pytest.mark.django_db
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(world=worlds)
def test_search_shows_each_caller_exactly_what_it_may_read(tenant, world):
    IdentityRealm.objects.get_or_create(tenant=tenant, name="corp", defaults={"issuer": "https://idp.test"})
    try:
        with transaction.atomic():
            _check(tenant, world)
            raise Rollback
    except Rollback:
        pass


def _check(tenant, world) -> None:
    memberships = world["memberships"]
    stored = {}
    for n, (readers, audience, values) in enumerate(world["documents"]):
        text = f"{WORD} passage {n}"
        make_document(tenant, [(text, vector(values))], title=f"doc {n}", readers=readers, audience=audience)
        stored[text] = (readers, audience)
    for caller, mode, top_k, audience in world["callers"]:
        identities = source_identities(principal_of(tenant, caller, memberships), tenant)
        hits = chunks_search(
            tenant=tenant,
            model="test-model",
            top_k=top_k,
            vector=None if mode == KEYWORD else vector([0.5, -0.25, 1, 0.1]),
            query=WORD,
            mode=mode,
            identities=identities,
            audience=audience,
        )
        shown = [hit.chunk for hit in hits]
        readable = {
            text
            for text, (readers, document_audience) in stored.items()
            if may_read(caller, memberships, readers) and narrowed(audience, document_audience)
        }
        assert set(shown) <= readable, (caller, mode, set(shown) - readable)  # 0 shown it may not read
        assert len(shown) == len(set(shown)) == min(top_k, len(readable)), (caller, mode)  # full pages
        if top_k >= len(readable):
            assert set(shown) == readable, (caller, mode)  # 0 readable ones lost
    assert {HYBRID, SEMANTIC, KEYWORD} == set(SEARCH_MODES)
