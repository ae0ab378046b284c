"""Vendor failures in the /v2 words (DESIGN section 4): 403 when the platform denies the
credentials or the access, 429 when it kept throttling past the retry budget, 502 when it is
unreachable or failing; a URL refused by the outbound guard is a 422 on the field that carried it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from core.api.errors import ApiError, RateLimited, value_error
from core.outbound import OutboundRefused, refusal_error
from integrations.errors import (
    CredentialsInvalid,
    VendorDenied,
    VendorError,
    VendorThrottled,
)

logger = logging.getLogger(__name__)


class UpstreamDenied(ApiError):
    status_code = 403
    code = "UPSTREAM_DENIED"


class UpstreamUnavailable(ApiError):
    status_code = 502
    code = "UPSTREAM_ERROR"


@contextmanager
def platform_call(
    *, url_field: tuple[str, ...] | None = None, credentials_at: tuple[str, ...] = ()
) -> Iterator[None]:
    """Run vendor calls, translating their failures. `url_field` names the body field whose URL
    the calls go to (None: the URL comes from configuration); `credentials_at` is where the
    credential fields sit in the body."""
    try:
        yield
    except OutboundRefused as exc:
        if url_field is not None:
            raise refusal_error(url_field, exc) from exc
        logger.error("The outbound guard refused a configured platform URL: %s", exc.reason)
        raise UpstreamUnavailable("The platform could not be reached.") from exc
    except CredentialsInvalid as exc:
        raise value_error((*credentials_at, exc.field), exc.message) from exc
    except VendorError as exc:
        logger.warning(
            "%s call failed: %s (status %s, vendor code %s)",
            exc.platform,
            type(exc).__name__,
            exc.status,
            exc.vendor_code,
        )
        raise _as_api_error(exc) from exc


def _as_api_error(exc: VendorError) -> ApiError:
    if isinstance(exc, VendorDenied):
        return UpstreamDenied(exc.message)
    if isinstance(exc, VendorThrottled):
        return RateLimited(exc.message, wait=int(exc.retry_after or 60))
    return UpstreamUnavailable(exc.message)
