"""simplejwt is pinned to one algorithm, checks audience and issuer, and refuses unsigned or
tampered tokens (DESIGN section 3). Each forged token is otherwise valid, so only the defect under
test can be the reason for the 401."""

from __future__ import annotations

import base64
import json
import time

import jwt
import pytest
from django.conf import settings

from tests.conftest import jwt_for
from tests.helpers import assert_error, assert_ok

URL = "/api/v1/api-keys"


def _claims(user) -> dict:
    return jwt.decode(
        jwt_for(user),
        settings.SIMPLE_JWT["SIGNING_KEY"],
        algorithms=["HS256"],
        audience=settings.SIMPLE_JWT["AUDIENCE"],
        issuer=settings.SIMPLE_JWT["ISSUER"],
    )


def _sign(claims: dict, *, key: str | None = None, algorithm: str = "HS256") -> str:
    return jwt.encode(claims, key or settings.SIMPLE_JWT["SIGNING_KEY"], algorithm=algorithm)


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def _call(client_for, tenant, token: str):
    return client_for(token, tenant).get(URL)


def test_settings_fix_the_algorithm_audience_and_issuer():
    jwt_settings = settings.SIMPLE_JWT
    assert jwt_settings["ALGORITHM"] == "HS256"
    assert jwt_settings["AUDIENCE"] and jwt_settings["ISSUER"]
    assert jwt_settings["LEEWAY"] == 0


def test_a_genuine_token_is_accepted_and_carries_audience_and_issuer(client_for, owner, tenant):
    claims = _claims(owner)
    assert claims["aud"] == settings.SIMPLE_JWT["AUDIENCE"]
    assert claims["iss"] == settings.SIMPLE_JWT["ISSUER"]
    assert_ok(_call(client_for, tenant, _sign(claims)))


def test_it_refuses_an_unsigned_alg_none_token(client_for, owner, tenant):
    claims = _claims(owner)
    for alg in ("none", "None", "NONE"):
        token = f"{_b64({'alg': alg, 'typ': 'JWT'})}.{_b64(claims)}."
        assert_error(_call(client_for, tenant, token), 401, "UNAUTHORIZED")


def test_it_refuses_a_payload_changed_after_signing(client_for, owner, teammate, tenant):
    token = _sign(_claims(owner))
    header, _payload, signature = token.split(".")
    forged = _claims(owner) | {"sub": str(teammate.id), "user_id": str(teammate.id)}
    assert_error(_call(client_for, tenant, f"{header}.{_b64(forged)}.{signature}"), 401, "UNAUTHORIZED")
    # One flipped character of the signature is enough as well.
    flipped = signature[:-2] + ("A" if signature[-2] != "A" else "B") + signature[-1]
    assert_error(_call(client_for, tenant, f"{header}.{_payload}.{flipped}"), 401, "UNAUTHORIZED")


def test_it_refuses_a_token_signed_with_another_key(client_for, owner, tenant):
    token = _sign(_claims(owner), key="not-the-service-key-0123456789abcdef0123456789")
    assert_error(_call(client_for, tenant, token), 401, "UNAUTHORIZED")


@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
@pytest.mark.parametrize("algorithm", ["HS384", "HS512"])
def test_it_refuses_other_algorithms_even_with_the_right_key(client_for, owner, tenant, algorithm):
    token = _sign(_claims(owner), algorithm=algorithm)
    assert_error(_call(client_for, tenant, token), 401, "UNAUTHORIZED")


@pytest.mark.parametrize(
    "change",
    [
        {"aud": "some-other-api"},
        {"iss": "someone-else"},
        {"aud": None},
        {"iss": None},
        {"exp": int(time.time()) - 1},
        {"token_type": "refresh"},
    ],
    ids=["wrong-audience", "wrong-issuer", "no-audience", "no-issuer", "expired", "refresh-type"],
)
def test_it_refuses_wrong_claims(client_for, owner, tenant, change):
    claims = _claims(owner)
    for name, value in change.items():
        if value is None:
            claims.pop(name)
        else:
            claims[name] = value
    assert_error(_call(client_for, tenant, _sign(claims)), 401, "UNAUTHORIZED")


def test_a_refresh_token_is_not_an_access_token(client_for, owner, tenant):
    from tests.factories import PASSWORD

    pair = client_for(None).post(
        "/api/v1/auth/token", {"username": "owner", "password": PASSWORD}, format="json"
    )
    refresh = assert_ok(pair)["refresh"]
    assert_error(_call(client_for, tenant, refresh), 401, "UNAUTHORIZED")
