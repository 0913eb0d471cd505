"""Readers search what they may see, on the site and in the API: ranked parts with a
highlighted snippet and a link to the exact place; drafts and unpublished parts are never found.
Every test commits for real: the index is rebuilt after a writer's transaction commits."""

import re

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import ChapterDelete
from curriculum.domain.search import search
from curriculum.domain.search_index import search_index_sync
from curriculum.domain.verification import Reverify
from curriculum.models import Chapter, ChapterRevision, SearchChapter, SearchEntry
from tests.conftest import sketch, stored_as_before
from tests.curriculum.site.test_views_chapter_page import visible_text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_throttle(settings):
    settings.API_ANON_RATE = "10000/min"
    cache.clear()


def site(client, q: str) -> str:
    response = client.get("/search/", {"q": q})
    assert response.status_code == 200
    return response.content.decode()


def api(client, q: str) -> list[dict]:
    response = client.get("/api/v1/search", {"q": q})
    assert response.status_code == 200, response.content
    return response.json()["items"]


def in_step(code: str) -> bool:
    """Whether the index's revision of the chapter is the chapter's, both read in one statement:
    a worker still deciding the seed's verdicts moves both between two reads."""
    index = SearchChapter.objects.filter(chapter__code=code)
    indexed, revision = index.values_list("revision", "chapter__revision").get()
    return indexed == revision


def test_a_snippet_escapes_what_the_author_wrote_and_marks_only_the_match(client, seeded_committed):
    thesis = "Zanzibar <script>alert(1)</script> claim, where 3 < 4 & <b>bold</b>."
    with stored_as_before():  # refused at import now; a chapter may hold it from before
        chapter_import(document=sketch("II.7", thesis=thesis))
    [hit] = [h for h in api(client, "zanzibar") if h["code"] == "II.7"]
    assert "<mark>Zanzibar</mark>" in hit["snippet_html"]
    assert re.sub(r"</?mark>", "", hit["snippet_html"]).count("<") == 0
    assert "&lt;" in hit["snippet_html"] and "&amp;" in hit["snippet_html"]


def test_site_search_never_finds_a_draft_chapter(client, seeded_committed):
    chapter_import(document=sketch("II.7", thesis="Quokka claim.", state="draft"))
    assert "II.7" not in visible_text(site(client, "quokka"))
    assert "Nothing found" in visible_text(site(client, "quokka"))


def test_api_search_never_finds_a_draft_chapter(client, seeded_committed):
    chapter_import(document=sketch("II.7", thesis="Quokka claim.", state="draft"))
    assert api(client, "quokka") == []


def test_a_chapter_withdrawn_to_draft_leaves_the_results_at_once(client, seeded_committed):
    chapter_import(document=sketch("II.7", thesis="Quokka claim."))
    assert [h["code"] for h in api(client, "quokka")] == ["II.7"]
    Chapter.objects.filter(code="II.7").update(state=Chapter.State.DRAFT)  # bypasses every hook
    assert api(client, "quokka") == []
    assert "II.7" not in visible_text(site(client, "quokka"))


def test_an_edit_to_a_working_copy_is_found_on_the_next_search(client, seeded_committed):
    chapter_import(document=sketch("II.7", thesis="Quokka claim."))
    assert api(client, "wombat") == []
    chapter_import(document=sketch("II.7", thesis="Wombat claim."))
    assert [h["code"] for h in api(client, "wombat")] == ["II.7"]
    assert api(client, "quokka") == []


def test_a_released_chapter_is_searched_as_released_not_as_edited(client, released_committed):
    Chapter.objects.filter(code="II.3").update(thesis="Platypus thesis, not released.")
    assert api(client, "platypus") == []
    assert any(h["code"] == "II.3" for h in api(client, "scaled dot-product"))


def test_the_index_is_built_when_a_writer_commits_from_the_revision_it_moved(seeded_committed):
    assert search_index_sync() == 0  # every import's commit built its chapter's entries
    chapter_import(document=sketch("II.7"))
    assert SearchEntry.objects.filter(chapter__code="II.7").exists()
    assert in_step("II.7")
    assert search_index_sync() == 0


def test_an_edit_rewrites_only_the_entries_whose_text_changed(seeded_committed):
    """Every row rewritten leaves a dead one behind that a broad search reads through."""
    chapter_import(document=sketch("II.7", thesis="Quokka claim."))
    entries = SearchEntry.objects.filter(chapter__code="II.7")
    before = dict(entries.values_list("position", "pk"))
    chapter_import(document=sketch("II.7", thesis="Wombat claim."))
    after = dict(entries.values_list("position", "pk"))
    assert len(after) > 2 and {n for n, pk in after.items() if before.get(n) != pk} == {0}
    assert [h.code for h in search(query="wombat").hits] == ["II.7"]
    assert search(query="quokka").total == 0


def test_a_run_of_letters_too_long_for_one_word_is_no_word_and_loses_nothing(
    client, seeded_committed
):
    """PostgreSQL holds at most 2,047 bytes in one word of a tsvector: a longer run, in letters
    or in two-byte ones, failed the index at commit, so the write answered 500 with its history
    and claims never kept, and migrate (which indexes again) stopped."""
    runs = ["z" * 2048, "é" * 1024]
    chapter_import(document=sketch("II.7", thesis=f"Quokka {runs[0]} claim {runs[1]}."))
    assert [h["code"] for h in api(client, "quokka")] == ["II.7"]
    assert in_step("II.7")
    assert ChapterRevision.objects.filter(chapter__code="II.7").exists()
    call_command("migrate", verbosity=0)
    held = SearchEntry.objects.filter(chapter__code="II.7").values_list("words", flat=True)
    assert any(" claim " in line for line in held)
    assert not any(run in line for line in held for run in runs)


def test_a_chapter_naming_one_deleted_is_searched_as_it_now_reads(client, seeded_committed, erin):
    """Its page names the deleted chapter no more; nor may its index, by that chapter's title."""
    chapter_import(document=sketch("II.8", title="Wombat Eight"))
    chapter_import(document=sketch("II.7", thesis="Read @II.8 first."))
    assert {h["code"] for h in api(client, "wombat")} == {"II.7", "II.8"}
    ChapterDelete(chapter=Chapter.objects.get(code="II.8"), user=erin).execute()
    assert api(client, "wombat") == []
    assert in_step("II.7")


def test_a_typo_search_leaves_the_connection_as_it_found_it(client, seeded_committed):
    """Its trigram threshold is its own transaction's: a pooled connection's next statement
    finds pg_trgm's default."""
    assert api(client, "atetntion")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('pg_trgm.similarity_threshold')")
        assert cursor.fetchone()[0] == "0.3"


def test_an_index_of_another_revision_is_made_again_by_migrate(seeded_committed):
    SearchChapter.objects.filter(chapter__code="II.4").update(revision=0)
    call_command("migrate", verbosity=0)
    assert in_step("II.4")


def test_a_search_request_writes_nothing(client, seeded_committed):
    chapter_import(document=sketch("II.7", thesis="Quokka claim."))
    with CaptureQueriesContext(connection) as queries:
        assert [h["code"] for h in api(client, "quokka")] == ["II.7"]
        site(client, "quokka")
    written = [q["sql"] for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")]
    assert written == []


AGREED = [
    "attention",
    '"soft lookup"',
    "the",
    "atention",
    "sofmax wieghts",
    "qeury",
    "atetntion",
    "QK",
    "multi-head attention",
    '"multi-head attention"',
    "attention -coreference",
    "coreference or wombat",
    "heads",
    "dk",
]
"""The documented query forms (README, Search): both databases give each the same answer."""


def answers(client, queries: list[str]) -> dict[str, list]:
    """Each query's total and every part it finds, in order (the first LIMIT_SEARCH_PAGE)."""
    found = {}
    for q in queries:
        page = client.get("/api/v1/search", {"q": q, "limit": 50}).json()
        found[q] = [page["count"], [h["url"] + " " + h["heading"] for h in page["items"]]]
    return found


def test_asking_for_verdicts_moves_the_chapter_but_rebuilds_no_index(seeded_committed):
    """A verdict changes no text a reader searches: its revision moves, the index's revision
    of it with it (its entries are the same rows, untouched), and the index is as current as it
    was."""
    before = list(SearchEntry.objects.filter(chapter__code="II.3").values_list("pk", flat=True))
    revision = Chapter.objects.get(code="II.3").revision
    Reverify(code="II.3").execute()
    assert Chapter.objects.get(code="II.3").revision > revision and in_step("II.3")
    after = SearchEntry.objects.filter(chapter__code="II.3")
    assert before and sorted(after.values_list("pk", flat=True)) == sorted(before)
    assert search_index_sync() == 0


def test_migrate_makes_the_cache_table_its_search_rebuild_renders_through(
    seeded_committed, settings
):
    """The rebuild after migrate renders through the cache: migrate makes a database cache's
    table first (`make serve` relies on it)."""
    SearchChapter.objects.update(revision=0)
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "cache_made_by_migrate",
        },
    }
    call_command("migrate", verbosity=0)
    assert not SearchChapter.objects.filter(revision=0).exists()
    assert search_index_sync() == 0
    assert "cache_made_by_migrate" in connection.introspection.table_names()
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE cache_made_by_migrate")
