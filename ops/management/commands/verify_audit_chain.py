from django.core.management.base import CommandError

from core.audit import audit_chains
from core.commands import OperatorCommand
from ops.archive import audit_chain_verify_archived


class Command(OperatorCommand):
    help = (
        "Verify every audit hash chain (or one tenant's with --tenant), archived entries included; "
        "exits 1 on tampering."
    )

    def add_arguments(self, parser):
        parser.add_argument("--tenant", help="tenant UUID, or 'platform'")

    def handle(self, *args, **options):
        chains = audit_chains(options["tenant"]) if options["tenant"] else audit_chains()
        broken = 0
        for chain in chains:
            problems = audit_chain_verify_archived(chain)
            broken += bool(problems)
            for problem in problems:
                self.stderr.write(f"{chain}: {problem}")
        if broken:
            raise CommandError(f"{broken} of {len(chains)} audit chain(s) failed verification.")
        self.stdout.write(f"{len(chains)} audit chain(s) verified.")
