"""What can go wrong when talking to a vendor platform, independent of how our API reports it.

The vendor clients raise these; each API family maps them to its own shape (the /v2 listings to
`{detail}` with 403/429/502, the tool hub to `UPSTREAM_ERROR` / `RATE_LIMITED`). Messages are safe
to show to the caller: they never carry credentials, tokens or request bodies.
"""

from __future__ import annotations


class VendorError(Exception):
    """A vendor call failed. `status` is the vendor's HTTP status (None when it never answered),
    `vendor_code` the vendor's own error code when it gave one."""

    def __init__(
        self,
        message: str,
        *,
        platform: str,
        status: int | None = None,
        vendor_code: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.platform = platform
        self.status = status
        self.vendor_code = vendor_code
        self.retry_after = retry_after


class VendorDenied(VendorError):
    """The platform refused the credentials or the access (401/403, a refused token grant)."""


class VendorNotFound(VendorError):
    """The platform has no such object, or hides it from these credentials (404)."""


class VendorThrottled(VendorError):
    """The platform kept answering 429/503 past the outbound client's retry budget."""


class VendorUnavailable(VendorError):
    """The platform is unreachable, timed out, answered 5xx or answered something unreadable."""


class VendorTimeout(VendorUnavailable):
    """The platform did not answer in time (the tool hub reports 504 for this one)."""


class VendorUnreachable(VendorUnavailable):
    """No answer at all: the connection was refused, reset or dropped, or its TLS handshake failed."""


class VendorRejected(VendorError):
    """The platform refused the request itself (another 4xx)."""


class ChangesExpired(VendorError):
    """The platform no longer knows a change-tracking token (410, resync required): read everything
    again and keep the new token."""


class ContentTooLarge(VendorError):
    """A download passed the size its caller allowed; it was cut there."""


class CredentialsInvalid(VendorError):
    """The credentials given cannot even be used (an unreadable private key, say). `field` names
    the credential field at fault, so an API can report it as a validation error."""

    def __init__(self, message: str, *, platform: str, field: str) -> None:
        super().__init__(message, platform=platform)
        self.field = field
