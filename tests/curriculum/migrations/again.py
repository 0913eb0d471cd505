"""What the ask-again migrations' tests share: a deployment applying what is new."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from curriculum.models import Chapter, ClaimVerdict, Verdict
from tests.conftest import verify_now

UNDECIDED = {("pending", None, "")}
"""Status, decided_at and engine_version of a verdict asked again."""


def migrated_from(name: str) -> None:
    """Back to migration ``name`` of curriculum, then forward through the one after it, the
    one under test, alone: a later one asks again by rules of its own, which its own test
    holds. The test's transaction undoes both (PostgreSQL's DDL is transactional)."""
    executor = MigrationExecutor(connection)
    executor.migrate([("curriculum", name)])
    executor = MigrationExecutor(connection)
    node = executor.loader.graph.node_map[("curriculum", name)]
    [following] = [child.key for child in node.children if child.key[0] == "curriculum"]
    executor.migrate([following])


def asked_again_only(version: str, after: str) -> None:
    """Every seed chapter verified, half its verdicts and claims then marked as decided by
    engine ``version``: migrating from ``after`` puts exactly those back to pending, keeping
    when each was asked and what its last decision said, and leaves the others as they were."""
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    decided = Verdict.objects.exclude(status="pending").order_by("pk")
    ids = list(decided.values_list("pk", flat=True))
    old, new = ids[::2], ids[1::2]
    assert old and new and not Verdict.objects.filter(status="pending").exists()
    Verdict.objects.filter(pk__in=old).update(engine_version=version)
    claims = ClaimVerdict.objects.exclude(status="pending").order_by("pk")
    old_claims = list(claims.values_list("pk", flat=True)[::2])
    assert old_claims and claims.count() > len(old_claims)
    ClaimVerdict.objects.filter(pk__in=old_claims).update(engine_version=version)
    asked = dict(decided.values_list("pk", "requested_at"))
    before = dict(decided.values_list("pk", "decided_status"))
    kept = set(Verdict.objects.filter(pk__in=new).values_list("pk", "status", "decided_at"))

    migrated_from(after)

    again = Verdict.objects.filter(pk__in=old)
    assert set(again.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert set(Verdict.objects.filter(pk__in=new).values_list("pk", "status", "decided_at")) == kept
    assert dict(Verdict.objects.filter(pk__in=ids).values_list("pk", "decided_status")) == before
    assert dict(Verdict.objects.filter(pk__in=ids).values_list("pk", "requested_at")) == asked
    claimed = ClaimVerdict.objects.filter(pk__in=old_claims)
    assert set(claimed.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert not ClaimVerdict.objects.exclude(pk__in=old_claims).filter(status="pending").exists()
