"""The encrypted model field: the database holds `v1:<dek version>:<ciphertext>` text, Python sees a
`Sealed` value. Plaintext cannot be assigned by accident: only `Sealed` (or None) is accepted, and
sealing needs the key hierarchy (`vault.services.secrets`)."""

from __future__ import annotations

from django.db import models

from vault.crypto import Sealed


class EncryptedField(models.TextField):
    description = "A secret encrypted with AES-256-GCM under the tenant's data key"

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("null", True)
        kwargs.setdefault("blank", True)
        kwargs.setdefault("editable", False)  # never in a form, the admin included
        super().__init__(*args, **kwargs)

    def from_db_value(self, value, expression, connection):
        return None if value is None else Sealed(value)

    def to_python(self, value):
        if value is None or isinstance(value, Sealed):
            return value
        return Sealed(value)

    def get_prep_value(self, value):
        if value is None:
            return None
        if not isinstance(value, Sealed):
            raise TypeError("An encrypted field takes a Sealed value, never plaintext.")
        return value.stored

    def value_to_string(self, obj):
        return "<Sealed secret>"  # serializers and dumpdata never carry ciphertext either
