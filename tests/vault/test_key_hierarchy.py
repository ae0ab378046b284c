"""The key hierarchy: bound ciphertexts, wrong master keys detected, master-key rotation."""

import base64
import os

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from tests.helpers import assert_error, assert_ok
from tests.vault.conftest import URL, store_body
from vault import keyring
from vault.crypto import DecryptionFailed, Sealed
from vault.models import Credential, DataKey, MasterKeyFingerprint
from vault.services.secrets import reveal

pytestmark = pytest.mark.django_db
TEST_KEY = "test1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="


def new_key(key_id: str) -> str:
    return f"{key_id}:{base64.b64encode(os.urandom(32)).decode()}"


@pytest.fixture
def master(settings):
    """Change VAULT_MASTER_KEYS for one test; the process's caches follow."""

    def use(value: str) -> None:
        settings.VAULT_MASTER_KEYS = value
        keyring.forget_cached_keys()

    yield use
    settings.VAULT_MASTER_KEYS = TEST_KEY
    keyring.forget_cached_keys()


def two_credentials(admin_api, outsider_api):
    assert_ok(admin_api.post(URL, store_body(accessToken="mine"), format="json"))
    assert_ok(admin_api.post(URL, store_body(integrationId="second", accessToken="second"), format="json"))
    assert_ok(outsider_api.post(URL, store_body(accessToken="theirs"), format="json"))
    return Credential.objects.order_by("created_at")


def test_a_ciphertext_moved_to_another_credential_does_not_decrypt(admin_api, outsider_api):
    mine, second, _ = two_credentials(admin_api, outsider_api)
    Credential.objects.filter(id=second.id).update(access_token=mine.access_token)
    with pytest.raises(DecryptionFailed):
        reveal(Credential.objects.get(id=second.id))


def test_a_ciphertext_moved_to_another_tenant_does_not_decrypt(admin_api, outsider_api):
    mine, _, theirs = two_credentials(admin_api, outsider_api)
    # Even with the other tenant's ciphertext under a DEK version that exists there.
    Credential.objects.filter(id=theirs.id).update(access_token=mine.access_token)
    with pytest.raises(DecryptionFailed):
        reveal(Credential.objects.get(id=theirs.id))


def test_a_ciphertext_moved_to_another_field_does_not_decrypt(admin_api, outsider_api):
    mine, *_ = two_credentials(admin_api, outsider_api)
    Credential.objects.filter(id=mine.id).update(refresh_token=mine.access_token)
    with pytest.raises(DecryptionFailed):
        reveal(Credential.objects.get(id=mine.id))


def test_a_damaged_ciphertext_raises_and_never_returns_the_stored_bytes(admin_api, outsider_api):
    mine, *_ = two_credentials(admin_api, outsider_api)
    stored = mine.access_token.stored
    Credential.objects.filter(id=mine.id).update(access_token=Sealed(stored[:-6] + "AAAAAA"))
    with pytest.raises(DecryptionFailed):
        reveal(Credential.objects.get(id=mine.id))


def test_a_sealed_value_never_prints_its_content(admin_api, outsider_api):
    mine, *_ = two_credentials(admin_api, outsider_api)
    assert repr(mine.access_token) == "<Sealed secret>" and "mine" not in repr(reveal(mine))
    with pytest.raises(TypeError):
        Credential.objects.filter(id=mine.id).update(access_token="plaintext")


def test_the_stored_value_names_its_format_and_dek_version(admin_api, outsider_api, tenant):
    mine, *_ = two_credentials(admin_api, outsider_api)
    assert mine.access_token.stored.startswith("v1:1:") and mine.dek_version == 1
    dek = DataKey.objects.get(tenant=tenant)
    assert dek.kek_id == "test1" and dek.status == "active"


def test_a_wrong_master_key_is_detected_not_used(admin_api, outsider_api, master):
    two_credentials(admin_api, outsider_api)
    assert MasterKeyFingerprint.objects.filter(key_id="test1").exists()
    master("test1:" + base64.b64encode(os.urandom(32)).decode())
    assert_error(admin_api.get(f"{URL}/itsm-prod-001"), 503, "VAULT_KEY_MISMATCH")
    with pytest.raises(SystemCheckError, match=r"vault\.E002"):
        call_command("check", "--database", "default")


def test_a_missing_master_key_for_stored_data_keys_is_detected(admin_api, outsider_api, master):
    two_credentials(admin_api, outsider_api)
    master(new_key("other"))
    assert_error(admin_api.get(f"{URL}/itsm-prod-001"), 503, "VAULT_KEY_MISMATCH")


@pytest.mark.parametrize(
    "value", ["", "nokey", "k1:not-base64!", "k1:" + base64.b64encode(b"short").decode()]
)
def test_malformed_master_keys_stop_start_up(value):
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured):
        keyring.parse_master_keys(value)


def test_debug_off_without_master_keys_refuses_to_start(tmp_path):
    import subprocess
    import sys

    env = {
        "PATH": os.environ["PATH"],
        "DJANGO_SECRET_KEY": "x" * 50,
        "DJANGO_DEBUG": "false",
        "VAR_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0 and "VAULT_MASTER_KEYS must be set" in result.stderr


def test_master_key_rotation_rewraps_every_data_key(admin_api, outsider_api, master):
    two_credentials(admin_api, outsider_api)
    k2 = new_key("k2")
    master(k2 + "," + TEST_KEY)  # the new key first, the old one still listed
    call_command("vault_rewrap_deks")
    assert set(DataKey.objects.values_list("kek_id", flat=True)) == {"k2"}
    master(k2)  # the old master key is gone
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))["accessToken"] == "mine"
