from django.core.management.base import CommandError

from core.commands import OperatorCommand
from knowledge.vectors.ranking import vector_index_create


class Command(OperatorCommand):
    help = (
        "Build the HNSW index (PostgreSQL) for the chunks of an embedding model of DIMENSION dimensions; "
        "the default model's 384 has one from the migrations. Idempotent; SQLite needs none."
    )

    def add_arguments(self, parser):
        parser.add_argument("dimension", type=int)

    def handle(self, *args, **options):
        try:
            created = vector_index_create(dimension=options["dimension"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write("created" if created else "nothing to do")
