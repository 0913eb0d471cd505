"""Verdicts verified under the old float-noise rule, which took a value its inputs' move swamped
for 0, are decided again; a mismatch or an error stands (the new rule only narrows)."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from curriculum.models import Chapter, Verdict
from tests.conftest import verify_now


def test_the_migration_asks_again_for_every_verified_verdict_only(seeded):
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    verified = Verdict.objects.filter(status="verified")
    assert verified.exists() and not Verdict.objects.filter(status="pending").exists()
    mismatch = verified.first()
    Verdict.objects.filter(pk=mismatch.pk).update(status="mismatch", decided_status="mismatch")
    ids = list(verified.values_list("pk", flat=True))
    kept = list(Verdict.objects.filter(pk=mismatch.pk).values_list("status", "decided_at"))
    asked = {pk: requested for pk, requested in verified.values_list("pk", "requested_at")}

    executor = MigrationExecutor(connection)
    executor.migrate([("curriculum", "0034_ask_again_counts_and_properties")])
    executor = MigrationExecutor(connection)
    executor.migrate([("curriculum", "0035_ask_again_verified_under_the_old_noise_rule")])

    again = Verdict.objects.filter(pk__in=ids)
    assert set(again.values_list("status", "decided_at", "engine_version", "decided_status")) == {
        ("pending", None, "", "verified")
    }
    assert dict(again.values_list("pk", "requested_at")) == asked  # the sweep sends them
    assert list(Verdict.objects.filter(pk=mismatch.pk).values_list("status", "decided_at")) == kept
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes("curriculum"))
