"""Admin's "Verify again" as the worker answers it: tests whose rows the worker must see
commit them, so they live apart from test_verdicts.py's module world."""

import pytest

from curriculum.models import Problem
from tests.curriculum.admin.test_verdicts import RIGHT, verify_again
from tests.curriculum.conftest import decided, import_chapter, uniform_problem


@pytest.mark.worker
def test_verify_again_reaches_the_worker_and_the_verdict_arrives(
    worker, client, erin, books_committed
):
    [sid] = import_chapter([uniform_problem("right-one", RIGHT)])
    first = decided([sid])["right-one"]

    client.force_login(erin)
    verify_again(client, [Problem.objects.get(key="right-one").pk])

    again = decided([sid])["right-one"]
    assert again.status == "verified"
    assert again.requested_at > first.decided_at  # asked anew, then decided anew
    assert again.decided_at > again.requested_at
