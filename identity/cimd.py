"""Client ID metadata documents (the OAuth draft `client-id-metadata-document`): a client whose
`client_id` is an https URL is described by the JSON document at that URL. django-oauth-toolkit
resolves, validates and caches such clients (`oauth2_provider.cimd`, enabled by CIMD_ENABLED); this
is the fetch it calls (CIMD_METADATA_FETCHER), through this service's outbound client: the guard
(public addresses only, checked again on the connected socket), timeouts, no redirect followed, a
size cap. The document is then held to the rules of every client (OAuthClient.clean)."""

from __future__ import annotations

import json
from email.message import Message

import requests
from oauth2_provider.cimd import CIMDError
from oauth2_provider.settings import oauth2_settings

from core.outbound import OutboundRefused, outbound_session


class MetadataDocumentFetcher:
    def fetch(self, client_id: str) -> tuple[dict, int]:
        """(the document, how many seconds it may be kept), or CIMDError: the library then
        treats the client as unknown and tries again after a back-off."""
        if not client_id.startswith("https://"):
            raise CIMDError("A client ID metadata document is fetched over https only.")
        seconds = oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        session = outbound_session(timeout=(seconds, seconds), retries=0)
        try:
            with session.get(
                client_id, allow_redirects=False, stream=True, headers={"Accept": "application/json"}
            ) as response:
                return _document(response), oauth2_settings.CIMD_METADATA_MAX_AGE_SECONDS
        except OutboundRefused as exc:
            raise CIMDError(f"The outbound guard refused the document's address: {exc.reason}") from None
        except requests.RequestException as exc:
            raise CIMDError(f"The document could not be fetched: {type(exc).__name__}") from None
        finally:
            session.close()


def _document(response) -> dict:
    if response.status_code != 200:
        raise CIMDError(f"The document's address answered HTTP {response.status_code}.")
    media = Message()
    media["content-type"] = response.headers.get("Content-Type", "")
    if not media.get_content_type().endswith(("/json", "+json")):
        raise CIMDError("The document is not JSON.")
    limit = oauth2_settings.CIMD_MAX_DOCUMENT_SIZE
    body = response.raw.read(limit + 1, decode_content=True)
    if len(body) > limit:
        raise CIMDError("The document is too large.")
    try:
        document = json.loads(body)
    except ValueError:
        raise CIMDError("The document is not valid JSON.") from None
    if not isinstance(document, dict):
        raise CIMDError("The document is not a JSON object.")
    return document
