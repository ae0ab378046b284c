# A tool call's use of its credential is counted by the database (docs/performance.md, "What makes
# it fast"): the call's execution record names the credential it used (`credential_used`), and
# inserting the record adds one to that credential's `access_count` and sets its
# `last_accessed_at` to the record's time, in the caller's transaction. A call and its counted use
# are one statement, as a decrypted GET and its counted read are (vault migration 0005).

from django.db import migrations, models

from core.triggers import trigger_install

POSTGRES_FORWARD = """
CREATE FUNCTION toolhub_credential_use_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE vault_credential SET access_count = access_count + 1, last_accessed_at = NEW.created_at
   WHERE id = NEW.credential_used;
  RETURN NULL;
END
$$;
CREATE TRIGGER toolhub_credential_use_counted AFTER INSERT ON toolhub_executionrecord
  FOR EACH ROW WHEN (NEW.credential_used IS NOT NULL)
  EXECUTE FUNCTION toolhub_credential_use_counted();
"""
POSTGRES_BACKWARD = """
DROP TRIGGER toolhub_credential_use_counted ON toolhub_executionrecord;
DROP FUNCTION toolhub_credential_use_counted();
"""
# SQLite keeps both UUIDs as the same 32 hex digits.
SQLITE_FORWARD = """
CREATE TRIGGER toolhub_credential_use_counted AFTER INSERT ON toolhub_executionrecord
  WHEN NEW.credential_used IS NOT NULL
BEGIN
  UPDATE vault_credential SET access_count = access_count + 1, last_accessed_at = NEW.created_at
   WHERE id = NEW.credential_used;
END
"""
SQLITE_BACKWARD = "DROP TRIGGER toolhub_credential_use_counted"


class Migration(migrations.Migration):
    dependencies = [
        ("toolhub", "0006_tool_keys_of_three_parts"),
        ("vault", "0005_credential_read_counted"),
    ]

    operations = [
        migrations.AddField(
            model_name="executionrecord",
            name="credential_used",
            field=models.UUIDField(blank=True, null=True),
        ),
        trigger_install(
            "use-count trigger",
            postgresql=(POSTGRES_FORWARD, POSTGRES_BACKWARD),
            sqlite=(SQLITE_FORWARD, SQLITE_BACKWARD),
        ),
    ]
