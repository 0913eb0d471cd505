"""Verdicts decided before counts were compared as integers and before a property's empty
comparison was refused are decided again: a count's and a property's go back to pending, the
others stand."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from curriculum.models import Chapter, ClaimVerdict, Verdict
from tests.conftest import verify_now


def test_the_migration_asks_again_for_counts_and_properties_only(seeded):
    for chapter in Chapter.objects.all():  # II.4's counts (attention_cost) and property too
        verify_now(chapter)
    counting = Verdict.objects.filter(solution__problem__operation="attention_cost")
    others = Verdict.objects.exclude(solution__problem__operation="attention_cost")
    properties = ClaimVerdict.objects.filter(kind="property")
    claims = ClaimVerdict.objects.filter(kind="claim")
    assert counting.exists() and others.exists() and properties.exists() and claims.exists()
    assert not Verdict.objects.filter(status="pending").exists()
    kept = sorted(others.values_list("pk", "status", "decided_at"))
    kept_claims = sorted(claims.values_list("pk", "status", "decided_at"))

    executor = MigrationExecutor(connection)
    executor.migrate([("curriculum", "0033_solution_answer_optional")])
    executor = MigrationExecutor(connection)
    executor.migrate([("curriculum", "0034_ask_again_counts_and_properties")])

    assert set(counting.values_list("status", "decided_at", "engine_version")) == {
        ("pending", None, "")
    }
    assert set(properties.values_list("status", "decided_at")) == {("pending", None)}
    assert sorted(others.values_list("pk", "status", "decided_at")) == kept
    assert sorted(claims.values_list("pk", "status", "decided_at")) == kept_claims
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes("curriculum"))
