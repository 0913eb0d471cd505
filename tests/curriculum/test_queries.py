"""Prepared queries (a chapter's freshness, its neighbours, the course's version) answer alike
on a new database session, whose statements are prepared again, and on every thread."""

import threading

import pytest
from django.db import connection

from curriculum.domain.reading import chapter_freshness, course_version
from curriculum.domain.wayfinding import chapter_neighbours


@pytest.mark.django_db(transaction=True)
def test_reads_answer_alike_after_the_connection_is_made_again(client, seeded):
    page, api = client.get("/chapters/II.4/"), client.get("/api/v1/chapters/II.4")
    version = course_version()
    connection.close()  # a new session: nothing is prepared there yet
    assert client.get("/chapters/II.4/").content == page.content
    assert client.get("/api/v1/chapters/II.4", HTTP_IF_NONE_MATCH=api["ETag"]).status_code == 304
    assert course_version() == version


@pytest.mark.django_db(transaction=True)
def test_every_thread_prepares_on_its_own_connection(seeded):
    here = (chapter_freshness(code="II.3"), chapter_neighbours(code="II.3"), course_version())
    there = []

    def read():
        try:
            there.append(
                (chapter_freshness(code="II.3"), chapter_neighbours(code="II.3"), course_version())
            )
        finally:
            connection.close()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert there == [here]
