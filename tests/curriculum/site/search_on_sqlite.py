"""Run by test_search.py (beside it) in a process of its own on an SQLite file (DATABASE_URL):
the embedded default's search, fuzzed with the same queries as PostgreSQL's, and its answers to
the documented query forms (AGREED) printed for the test to compare with PostgreSQL's."""

import json

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import settings as fuzzing  # noqa: E402

from curriculum.domain.chapter_files import chapter_import  # noqa: E402
from tests.conftest import CONTENT, import_files, sketch  # noqa: E402
from tests.curriculum.site.test_search import AGREED, answers  # noqa: E402
from tests.curriculum.site.test_search_reads import QUERIES, assert_answered  # noqa: E402


@given(q=QUERIES)
@fuzzing(max_examples=30, deadline=None, database=None)  # PostgreSQL's search takes 100
def fuzz(q: str) -> None:
    assert_answered(Client(), q)


if __name__ == "__main__":
    assert connection.vendor == "sqlite", connection.vendor
    call_command("migrate", verbosity=0)
    import_files(*sorted(CONTENT.rglob("*.yaml")))
    chapter_import(document=sketch("II.7", thesis="Wombat attention claim."))
    client = Client()
    assert "Wombat" in client.get("/search/", {"q": "wombat -"}).content.decode()
    print("answers:", json.dumps(answers(Client(), AGREED)))
    fuzz()
    print("searched on sqlite")
