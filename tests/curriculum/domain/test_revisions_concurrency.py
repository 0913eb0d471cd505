"""A chapter and its search index entry move together: a search of the index beside verdicts
moving the chapter (the claims worker writes in autocommit) never finds the entry at another
revision than its chapter, nor rebuilds it (PostgreSQL, real threads and connections)."""

import threading

import pytest
from django.db import connection

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.domain.revisions import chapters_moved
from curriculum.domain.search_index import search_index_sync
from curriculum.models import Chapter
from tests.conftest import sketch, verify_now
from tests.curriculum.site.test_search import in_step

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks"),
    pytest.mark.django_db(transaction=True),
]


def test_verdicts_moving_a_chapter_beside_index_rebuilds_leave_the_index_current(books_committed):
    chapter_import(document=sketch("II.7"))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    assert search_index_sync() == 0
    done = threading.Event()

    def decide():  # as the claims worker moves a chapter its verdicts are stated in
        try:
            for _ in range(150):
                chapters_moved({chapter.pk}, searched=False)
        finally:
            done.set()
            connection.close()

    worker = threading.Thread(target=decide)
    worker.start()
    rebuilt = []  # a verdict changes no text: the index is never found stale, nor rebuilt
    while not done.is_set():
        rebuilt.append(search_index_sync(chapter_ids=[chapter.pk]))
    worker.join()
    assert len(rebuilt) > 10 and set(rebuilt) == {0}
    assert in_step(chapter.code)
    assert search_index_sync() == 0
