"""`manage.py check --deploy` is clean with production settings from the environment, and bandit
finds nothing of medium severity or above."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.live import BIN, ROOT

PRODUCTION = {
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": "prod-like-" + "k7Qx2m9Vb4Lp0Zr8Tn3Wc6Yd1Hs5Gf2Je7Ua4Oi9" * 2,
    "VAULT_MASTER_KEYS": "prod1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
    "DJANGO_ALLOWED_HOSTS": "api.example.com",
    "DJANGO_SECURE_COOKIES": "true",
    "DJANGO_SECURE_SSL_REDIRECT": "true",
    "DJANGO_SECURE_HSTS_SECONDS": "31536000",
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "DJANGO_SECURE_HSTS_PRELOAD": "true",
    "DJANGO_TRUST_X_FORWARDED_PROTO": "true",
}
SOURCES = [
    "config",
    "core",
    "identity",
    "integrations",
    "vault",
    "knowledge",
    "ingestion",
    "toolhub",
    "ops",
    "bench",
    "manage.py",
]


def _run(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    env = os.environ | PRODUCTION | {"VAR_DIR": str(tmp_path)}
    result = _run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues (0 silenced)" in result.stdout, result.stdout


def test_check_deploy_notices_a_missing_https_setting(tmp_path):
    # The check is live: drop one production switch and it fails.
    env = os.environ | PRODUCTION | {"VAR_DIR": str(tmp_path), "DJANGO_SECURE_HSTS_SECONDS": "0"}
    result = _run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode != 0 and "security.W004" in result.stdout + result.stderr


def test_bandit_finds_nothing_of_medium_severity_or_above():
    args = [str(BIN / "bandit"), "-r", *SOURCES, "-x", "*/migrations/*", "-ll", "-f", "json", "-q"]
    result = _run(args, dict(os.environ))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
