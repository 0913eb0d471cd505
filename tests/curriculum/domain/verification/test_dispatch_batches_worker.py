"""A chapter verified again goes to the worker in batches and every verdict arrives
(committed rows, apart from test_dispatch_batches.py's module world)."""

from curriculum.domain.verification import (
    Reverify,
)
from tests.curriculum.conftest import decided, import_chapter, uniform_problem


def test_a_chapter_verified_again_goes_in_batches_and_every_verdict_arrives(
    worker, books_committed, settings
):
    ids = import_chapter([uniform_problem(f"p{i}", [[2, 3], [2, 3]]) for i in range(250)])
    decided(ids)
    before = worker.received("verify_batch")
    settings.VERIFY_BATCH_SIZE = 100  # the sender splits the checks

    assert sorted(Reverify(code="II.9").execute()) == sorted(ids)

    verdicts = decided(ids)
    assert {v.status for v in verdicts.values()} == {"verified"}
    assert worker.received("verify_batch") - before == 3  # 250 checks, 100 to a task
