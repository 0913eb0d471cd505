"""`make serve`'s anonymous rate holds across every gunicorn worker: its own server, started
at a low rate (test_serve.py's tests share one at a rate they never reach)."""

import pytest

from tests.curriculum.conftest import release_ii3
from tests.journeys.test_serve import cache_empty, fetch, serve_env, serving

pytestmark = [pytest.mark.serve, pytest.mark.django_db(transaction=True)]


def test_the_anonymous_rate_holds_across_every_gunicorn_worker(seeded_committed, tmp_path):
    release_ii3()
    cache_empty()
    with serving("scripts/serve.sh", serve_env("8/min"), tmp_path / "serve.log") as (base, _):
        answers = [fetch(base + "/api/v1/books")[0] for _ in range(16)]
    assert answers.count(200) <= 8 and 429 in answers, answers
