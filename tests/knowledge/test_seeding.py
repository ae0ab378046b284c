import io

from django.core.management import call_command

from knowledge.models import SourceRule


def test_seed_demo_adds_the_demo_source_rules_once(db):
    call_command("seed_demo", stdout=io.StringIO())
    call_command("seed_demo", stdout=io.StringIO())
    rules = SourceRule.objects.order_by("kind")
    assert [(r.kind, r.target, r.audiences) for r in rules] == [
        ("allow", "site", ["hr"]),
        ("block", "site", []),
    ]
