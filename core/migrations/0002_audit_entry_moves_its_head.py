from django.db import migrations

from core.triggers import trigger_install

# An audit entry moves its chain's head in the statement that inserts it (core.audit,
# docs/performance.md "What makes it fast"): a BEFORE INSERT trigger finds the head the entry links
# onto (same chain, the seq before it, the hash it links to), unless another transaction holds it,
# moves it onto the entry and lets the row in; otherwise the row is not inserted (the INSERT
# reports 0 rows) and the writer links the entry onto a head it has locked. The head moves if and
# only if its entry is inserted, so a chain never forks and never skips. An entry whose writer has
# already moved the head onto it (a process of the release before this trigger, which moved the
# head in a statement of its own, still running during a rolling deploy) goes in as it is.
POSTGRES_FORWARD = """
CREATE FUNCTION adminops_audit_entry_link() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM adminops_auditchainhead
   WHERE chain = NEW.chain AND seq = NEW.seq - 1 AND last_hash = NEW.prev_hash
     FOR UPDATE SKIP LOCKED;
  IF FOUND THEN
    UPDATE adminops_auditchainhead SET seq = NEW.seq, last_hash = NEW.hash WHERE chain = NEW.chain;
    RETURN NEW;
  END IF;
  PERFORM 1 FROM adminops_auditchainhead
   WHERE chain = NEW.chain AND seq = NEW.seq AND last_hash = NEW.hash;
  IF FOUND THEN
    RETURN NEW;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER adminops_audit_entry_link BEFORE INSERT ON adminops_auditentry
  FOR EACH ROW EXECUTE FUNCTION adminops_audit_entry_link();
"""
POSTGRES_BACKWARD = """
DROP TRIGGER adminops_audit_entry_link ON adminops_auditentry;
DROP FUNCTION adminops_audit_entry_link();
"""
# SQLite has no row locks (it serialises writers), so a head is never held by another transaction.
SQLITE_FORWARD = """
CREATE TRIGGER adminops_audit_entry_link BEFORE INSERT ON adminops_auditentry
BEGIN
  SELECT RAISE(IGNORE) WHERE NOT EXISTS (
    SELECT 1 FROM adminops_auditchainhead
     WHERE chain = NEW.chain AND (
       (seq = NEW.seq - 1 AND last_hash = NEW.prev_hash) OR (seq = NEW.seq AND last_hash = NEW.hash)
     )
  );
  UPDATE adminops_auditchainhead SET seq = NEW.seq, last_hash = NEW.hash WHERE chain = NEW.chain;
END
"""
SQLITE_BACKWARD = "DROP TRIGGER adminops_audit_entry_link"


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial")]

    operations = [
        trigger_install(
            "audit link trigger",
            postgresql=(POSTGRES_FORWARD, POSTGRES_BACKWARD),
            sqlite=(SQLITE_FORWARD, SQLITE_BACKWARD),
        )
    ]
