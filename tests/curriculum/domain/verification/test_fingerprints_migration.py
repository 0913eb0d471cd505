"""The migration that fills each solution's fingerprint, as `fingerprint` gives it (a
migration commits, so this lives apart from test_fingerprints.py's module world)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from curriculum.domain.verification import counted
from curriculum.models import Solution
from tests.curriculum.conftest import import_chapter, uniform_problem
from tests.curriculum.domain.verification.test_fingerprints import (
    RIGHT,
    decide_all,
    stored_equals_computed,
)


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_each_fingerprint_as_fingerprint_gives_it(books_committed):
    import_chapter([uniform_problem("p1", RIGHT), uniform_problem("p2", [[1e16, -0.0], [2, 3]])])
    decide_all()
    executor = MigrationExecutor(connection)
    executor.migrate([("curriculum", "0013_chapter_revision")])
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("curriculum"))

    assert stored_equals_computed()
    decide_all()  # migrations 0035 and 0036 asked again for decided verdicts
    here = Solution.objects.filter(problem__chapter__code="II.9")
    assert list(here.filter(counted()).values_list("problem__key", flat=True)) == ["p1"]
