"""An app-only token for the document-site API from the identity platform, through msal.

msal talks to the identity platform through a guarded outbound session (`http_client=`), so the
same timeouts, guard and CA bundle apply to it. Instance discovery is off: msal would otherwise ask
login.microsoftonline.com to vouch for any authority host it does not know (a national cloud, a
private deployment, the test fake); the authority host comes from `SITELIB_LOGIN_URL`, which only
operators set. msal still fetches the tenant's OpenID configuration from the authority.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import msal
import requests
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from msal.exceptions import MsalServiceError

from core.outbound import outbound_session
from integrations.errors import CredentialsInvalid, VendorDenied, VendorTimeout, VendorUnavailable
from integrations.sitelib.models import PLATFORM, SitelibCredentials, cloud_tid_valid, thumbprint_valid

# Token errors that mean "the platform is in trouble", not "these credentials are refused".
_TRANSIENT_TOKEN_ERRORS = frozenset({"temporarily_unavailable", "server_error"})


def app_token(*, graph_url: str, login_url: str, credentials: SitelibCredentials) -> str:
    """A token for the API at `graph_url` (scope `{scheme}://{host}/.default`)."""
    credential = _msal_credential(credentials)
    scope = "{0.scheme}://{0.netloc}/.default".format(urlsplit(graph_url))
    with outbound_session(retry_posts=True) as http:  # a client-credentials grant creates nothing
        try:
            app = msal.ConfidentialClientApplication(
                credentials.client_id,
                authority=f"{login_url}/{credentials.cloud_tid}",
                client_credential=credential,
                http_client=http,
                instance_discovery=False,
                token_cache=msal.TokenCache(),  # this call only: nothing outlives the request
            )
            result = app.acquire_token_for_client(scopes=[scope])
        except requests.Timeout as exc:
            raise VendorTimeout("The identity platform did not answer in time.", platform=PLATFORM) from exc
        except (requests.RequestException, MsalServiceError, json.JSONDecodeError, KeyError) as exc:
            raise VendorUnavailable("The identity platform could not be reached.", platform=PLATFORM) from exc
        except ValueError as exc:
            # msal's tenant discovery answers ValueError when the platform does not know the tenant.
            raise VendorDenied(
                "The identity platform does not recognise this directory tenant.", platform=PLATFORM
            ) from exc
    return _token_from(result)


def _msal_credential(creds: SitelibCredentials) -> str | dict:
    if not cloud_tid_valid(creds.cloud_tid):
        raise CredentialsInvalid(
            "Not a directory tenant GUID or domain.", platform=PLATFORM, field="cloud_tid"
        )
    if not creds.uses_certificate:
        if not creds.client_secret:
            raise CredentialsInvalid(
                "A client secret or a certificate (thumbprint and key) is required.",
                platform=PLATFORM,
                field="client_secret",
            )
        return creds.client_secret
    if not thumbprint_valid(creds.thumbprint):
        raise CredentialsInvalid("Not a SHA-1 certificate thumbprint.", platform=PLATFORM, field="thumbprint")
    try:
        serialization.load_pem_private_key(creds.private_key.encode(), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise CredentialsInvalid(
            "The key is not an unencrypted PEM private key.", platform=PLATFORM, field="key"
        ) from exc
    return {"private_key": creds.private_key, "thumbprint": creds.thumbprint.replace(":", "")}


def _token_from(result: dict) -> str:
    if "access_token" in result:
        return result["access_token"]
    error = str(result.get("error") or "unknown_error")
    # The platform's description starts with its own code (AADSTS...) and never echoes secrets;
    # its first line is what an operator needs.
    description = str(result.get("error_description") or "").splitlines()[0:1]
    message = f"The identity platform refused the token request: {error}"
    if description:
        message += f" ({description[0][:200]})"
    kind = VendorUnavailable if error in _TRANSIENT_TOKEN_ERRORS else VendorDenied
    raise kind(message, platform=PLATFORM, vendor_code=error)
