from django.db import migrations

from core.triggers import trigger_install

# A credential's secret reads are counted from the audit trail (docs/performance.md, "What makes it
# fast"): the database counts each CREDENTIAL_SECRET_READ entry on the credential it names
# (`resource.id` is `cred-<uuid>`) as the entry is inserted, in the reader's transaction, so a
# decrypted GET writes one thing, its audit entry. Uses by connectors are counted by
# `vault.services.common.credential_access_count` (their audit entry names the tool).
POSTGRES_FORWARD = """
CREATE FUNCTION vault_credential_read_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE vault_credential SET access_count = access_count + 1, last_accessed_at = NEW.timestamp
   WHERE id = substr(NEW.resource ->> 'id', 6)::uuid;
  RETURN NULL;
END
$$;
CREATE TRIGGER vault_credential_read_counted AFTER INSERT ON adminops_auditentry
  FOR EACH ROW WHEN (NEW.action = 'CREDENTIAL_SECRET_READ')
  EXECUTE FUNCTION vault_credential_read_counted();
"""
POSTGRES_BACKWARD = """
DROP TRIGGER vault_credential_read_counted ON adminops_auditentry;
DROP FUNCTION vault_credential_read_counted();
"""
# SQLite keeps a UUID as 32 hex digits and a JSON field as text.
SQLITE_FORWARD = """
CREATE TRIGGER vault_credential_read_counted AFTER INSERT ON adminops_auditentry
  WHEN NEW.action = 'CREDENTIAL_SECRET_READ'
BEGIN
  UPDATE vault_credential SET access_count = access_count + 1, last_accessed_at = NEW.timestamp
   WHERE id = replace(substr(json_extract(NEW.resource, '$.id'), 6), '-', '');
END
"""
SQLITE_BACKWARD = "DROP TRIGGER vault_credential_read_counted"


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
        ("vault", "0004_console_labels"),
    ]

    operations = [
        trigger_install(
            "read-count trigger",
            postgresql=(POSTGRES_FORWARD, POSTGRES_BACKWARD),
            sqlite=(SQLITE_FORWARD, SQLITE_BACKWARD),
        )
    ]
