"""Two PUTs of one chapter at once (PostgreSQL): each answer's ETag names the version that PUT
wrote, so the writer overwritten meanwhile gets 412 when it writes again over its own version
(a hostile test's two PUTs both answered the winner's ETag, and the loser's If-Match then
overwrote the winner's edit unseen)."""

import json

import pytest
from django.db import connection
from django.test import Client

from tests.conftest import sketch
from tests.curriculum.api.test_writes import put
from tests.curriculum.domain.chapter_files.test_importing_race import at_once, meeting_at_the_write

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writes"),
    pytest.mark.django_db(transaction=True),
]


def test_each_put_answers_the_etag_of_what_it_wrote(books_committed, alice_token, monkeypatch):
    assert put(Client(), "II.7", sketch(), alice_token).status_code == 201
    meeting_at_the_write(monkeypatch)
    first, second = at_once(
        *(
            lambda summary=summary: put(Client(), "II.7", sketch(summary=summary), alice_token)
            for summary in ("Written by one.", "Written by two.")
        )
    )
    assert (first.status_code, second.status_code) == (200, 200)
    assert first["ETag"] != second["ETag"]
    source = Client().get("/api/v1/chapters/II.7/source", **alice_token)
    stored, overwritten = (
        (first, second) if source.json()["summary"] == "Written by one." else (second, first)
    )
    assert stored["ETag"] == source["ETag"]
    again = put(
        Client(),
        "II.7",
        sketch(summary="Mine again."),
        alice_token,
        HTTP_IF_MATCH=overwritten["ETag"],
    )
    assert again.status_code == 412
    after = Client().get("/api/v1/chapters/II.7/source", **alice_token)
    assert after.json()["summary"] == source.json()["summary"]
    assert json.loads(again.content)["status"] == 412
