#!/usr/bin/env python
import os
import sys

# Printed under the settings' refusal to start without secrets (DESIGN section 2): the form that works
# on a developer machine, where `make run` generated them into var/.
DEVELOPER_HINT = (
    "On a developer machine, run management commands with the environment `make run` uses: "
    "DJANGO_DEBUG=true .venv/bin/python manage.py ... (docs/operations.md). In production, set "
    "DJANGO_SECRET_KEY and VAULT_MASTER_KEYS as the service has them."
)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018  (loads the settings)
    except ImproperlyConfigured as exc:
        if "DJANGO_DEBUG is off" in str(exc):
            sys.exit(f"{exc}\n{DEVELOPER_HINT}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
