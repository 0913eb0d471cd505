"""Bodies are made once per version: a repeated 200 costs the freshness query and a cache
read, and any new version (an edit, a release) is served new bytes at once."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.domain.chapter_files import chapter_export, chapter_import, load_yaml
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import verify_now


@pytest.fixture
def released(seeded):
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    chapter_publish(chapter=chapter)


@pytest.mark.parametrize(
    ("url", "validators"),
    [  # a page also asks for its neighbours
        ("/api/v1/chapters/II.3", 1),
        ("/chapters/II.3/", 2),
        ("/api/v1/chapters/II.3/releases/1", 2),
        ("/chapters/II.3/releases/1/", 3),
        ("/api/v1/chapters/II.4", 1),
        ("/chapters/II.4/", 2),  # a working copy
    ],
)
def test_a_repeated_read_costs_its_validators_and_gets_the_same_bytes(
    client, released, url, validators
):
    first = client.get(url)
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url)
    assert again.status_code == 200
    assert again.content == first.content
    assert len(queries) == validators, [q["sql"][:80] for q in queries]
    assert not any("curriculum_problem" in q["sql"] for q in queries.captured_queries)


def test_a_new_release_is_served_at_once_and_the_old_one_stays(client, released):
    before = client.get("/api/v1/chapters/II.3").json()
    page = client.get("/chapters/II.3/").content.decode()
    document = load_yaml(chapter_export(code="II.3"))
    document["thesis"] = "A thesis written for release 2."
    chapter_import(document=document)
    chapter_publish(chapter=Chapter.objects.get(code="II.3"))

    after = client.get("/api/v1/chapters/II.3").json()
    assert (before["release"], after["release"]) == (1, 2)
    assert after["thesis"] == "A thesis written for release 2."
    assert "written for release 2" in client.get("/chapters/II.3/").content.decode()
    assert "written for release 2" not in page
    assert client.get("/api/v1/chapters/II.3/releases/1").json()["thesis"] == before["thesis"]
    assert client.get("/api/v1/chapters/II.3/releases/1").json()["latest_release"] == 2


def test_an_edited_working_copy_is_served_its_new_body(client, seeded):
    client.get("/api/v1/chapters/II.4")
    client.get("/chapters/II.4/")
    document = load_yaml(chapter_export(code="II.4"))
    document["thesis"] = "An edited thesis."
    chapter_import(document=document)
    assert client.get("/api/v1/chapters/II.4").json()["thesis"] == "An edited thesis."
    assert "An edited thesis." in client.get("/chapters/II.4/").content.decode()
