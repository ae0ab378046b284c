"""The URLconf tries the busiest apps' patterns first (config/urls.py): that order must never decide
which view answers, so no path of one pattern may be answered by another."""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, resolve


def _routes(patterns, prefix=""):
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route, entry


API_ROUTES = [
    (route, entry)
    for route, entry in _routes(get_resolver().url_patterns)
    if route.startswith(("api/v1/", "v2/", "oauth/", "health"))
]


@pytest.mark.parametrize("route,entry", API_ROUTES, ids=[route for route, _ in API_ROUTES])
def test_every_api_route_is_answered_by_its_own_view(route, entry):
    path = "/" + re.sub(r"<(?:\w+:)?\w+>", "sample-1", route)
    assert resolve(path).func is entry.callback
