"""Who else uses a credential. Apps that reference vault credentials (the tool hub's connections)
register a counter, so a DELETE can report `integrationsAffected` without the vault importing them.
"""

from __future__ import annotations

from collections.abc import Callable

_COUNTERS: list[Callable] = []


def credential_usage_register(counter: Callable) -> Callable:
    """`counter(credential) -> int`: how many of the app's integrations use this credential."""
    if counter not in _COUNTERS:
        _COUNTERS.append(counter)
    return counter


def integrations_affected(credential) -> int:
    # The credential's own integration stops working, plus whatever else references it.
    return 1 + sum(int(counter(credential)) for counter in _COUNTERS)
