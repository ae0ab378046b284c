"""Identity's parts of the named jobs (core.jobs): expiry and clean-up of keys and tokens, and the
flush of API-key usage counters onto the keys' rows."""

from __future__ import annotations

from core.jobs import job_implementation
from core.models import JobRun
from identity.models import ApiKey
from identity.services.api_keys import api_keys_expire_and_purge
from identity.services.oauth import oauth_tokens_purge
from identity.services.users import refresh_families_purge
from identity.usage import api_key_usage_flush


@job_implementation("cleanupExpiredSessions")
def cleanup_expired_sessions(run: JobRun) -> int:
    """Expired API keys stop authenticating at once (checked per request); here their status is
    brought in line so listings and stats say `expired`, revoked keys past retention are removed,
    and expired OAuth access tokens and spent sign-ins' refresh families are deleted. The tool hub
    adds its part (toolhub/jobs.py)."""
    return api_keys_expire_and_purge() + oauth_tokens_purge() + refresh_families_purge()


@job_implementation("usageFlush")
def usage_flush(run: JobRun) -> int:
    keys = ApiKey.objects.filter(status=ApiKey.Status.ACTIVE)
    for key in keys.iterator():
        api_key_usage_flush(key)
    return keys.count()
