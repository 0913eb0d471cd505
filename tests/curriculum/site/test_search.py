"""Readers search what they may see, on the site and in the API: ranked parts with a
highlighted snippet and a link to the exact place; drafts and unpublished parts are never found.
Every test commits for real: the index is rebuilt after a writer's transaction commits."""

import json
import os
import re
import subprocess
import sys

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, example, given
from hypothesis import settings as fuzzing
from hypothesis import strategies as st

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.search import search
from curriculum.domain.search_index import search_index_sync
from curriculum.domain.verification import Reverify
from curriculum.models import Chapter, SearchChapter, SearchEntry, StrandItem
from tests.conftest import sketch, stored_as_before
from tests.curriculum.site.test_views_chapter_page import visible_text
from tests.processes import ROOT

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


def test_a_word_from_the_prose_is_found_with_a_link_to_its_section(client, seeded):
    html = site(client, "coreference")
    assert 'href="/chapters/II.4/#problem"' in html
    assert "<mark>coreference</mark>" in html.lower()
    assert "1 result" in visible_text(html) or "results" in visible_text(html)


def test_results_are_ranked_a_title_before_a_passing_mention(client, seeded):
    hits = api(client, "multi-head attention")
    assert hits[0]["code"] == "II.4" and hits[0]["kind"] == "chapter"
    assert hits[0]["url"] == "/chapters/II.4/"


def test_the_api_links_a_proposition_and_a_notation_row(client, seeded):
    urls = [h["url"] for h in api(client, "partitioning preserves")]
    assert "/chapters/II.4/" in urls
    assert "/chapters/II.4/#notation" in [h["url"] for h in api(client, "sequence length")]


def test_a_problem_is_headed_as_readers_name_it_never_by_its_variant(client, seeded):
    hits = [h for h in api(client, "comparisons subtractions") if h["kind"] == "problem"]
    assert hits and all(re.fullmatch(r"(Worked problem|Exercise) \d+", h["heading"]) for h in hits)
    html = site(client, "comparisons subtractions")
    assert "cost-count" not in html and re.search(r"search-hit-heading.*Exercise \d+", html)


def test_book_0_entries_are_found(client, seeded):
    assert any(h["code"] == "0.LA.01" for h in api(client, "row-major"))


def test_a_snippet_escapes_what_the_author_wrote_and_marks_only_the_match(client, seeded):
    thesis = "Zanzibar <script>alert(1)</script> claim, where 3 < 4 & <b>bold</b>."
    with stored_as_before():  # refused at import now; a chapter may hold it from before
        chapter_import(document=sketch("II.7", thesis=thesis))
    [hit] = [h for h in api(client, "zanzibar") if h["code"] == "II.7"]
    assert "<mark>Zanzibar</mark>" in hit["snippet_html"]
    assert re.sub(r"</?mark>", "", hit["snippet_html"]).count("<") == 0
    assert "&lt;" in hit["snippet_html"] and "&amp;" in hit["snippet_html"]


def test_site_search_never_finds_a_draft_chapter(client, seeded):
    chapter_import(document=sketch("II.7", thesis="Quokka claim.", state="draft"))
    assert "II.7" not in visible_text(site(client, "quokka"))
    assert "Nothing found" in visible_text(site(client, "quokka"))


def test_api_search_never_finds_a_draft_chapter(client, seeded):
    chapter_import(document=sketch("II.7", thesis="Quokka claim.", state="draft"))
    assert api(client, "quokka") == []


def test_a_chapter_withdrawn_to_draft_leaves_the_results_at_once(client, seeded):
    chapter_import(document=sketch("II.7", thesis="Quokka claim."))
    assert [h["code"] for h in api(client, "quokka")] == ["II.7"]
    Chapter.objects.filter(code="II.7").update(state=Chapter.State.DRAFT)  # bypasses every hook
    assert api(client, "quokka") == []
    assert "II.7" not in visible_text(site(client, "quokka"))


def test_an_unpublished_strand_item_is_never_found_on_either_surface(client, seeded):
    assert StrandItem.objects.filter(chapter__code="II.4", published=False).exists()
    hidden = StrandItem.objects.filter(chapter__code="II.4", published=False).first()
    word = max(re.findall(r"[A-Za-z]{6,}", hidden.title + " " + hidden.body), key=len)
    assert hidden.title not in {h["heading"] for h in api(client, word)}
    headings = re.findall(r'class="search-hit-heading"><a [^>]+>([^<]+)<', site(client, word))
    assert headings and hidden.title not in headings  # found elsewhere, never as itself


def test_an_edit_to_a_working_copy_is_found_on_the_next_search(client, seeded):
    chapter_import(document=sketch("II.7", thesis="Quokka claim."))
    assert api(client, "wombat") == []
    chapter_import(document=sketch("II.7", thesis="Wombat claim."))
    assert [h["code"] for h in api(client, "wombat")] == ["II.7"]
    assert api(client, "quokka") == []


def test_a_released_chapter_is_searched_as_released_not_as_edited(client, released):
    Chapter.objects.filter(code="II.3").update(thesis="Platypus thesis, not released.")
    assert api(client, "platypus") == []
    assert any(h["code"] == "II.3" for h in api(client, "scaled dot-product"))


def test_the_index_is_built_when_a_writer_commits_from_the_revision_it_moved(seeded):
    assert search_index_sync() == 0  # every import's commit built its chapter's entries
    chapter_import(document=sketch("II.7"))
    chapter = Chapter.objects.get(code="II.7")
    assert SearchEntry.objects.filter(chapter=chapter).exists()
    assert SearchChapter.objects.get(chapter=chapter).revision == chapter.revision
    assert search_index_sync() == 0


def test_an_edit_rewrites_only_the_entries_whose_text_changed(seeded):
    """Every row rewritten leaves a dead one behind that a broad search reads through."""
    chapter_import(document=sketch("II.7", thesis="Quokka claim."))
    entries = SearchEntry.objects.filter(chapter__code="II.7")
    before = dict(entries.values_list("position", "pk"))
    chapter_import(document=sketch("II.7", thesis="Wombat claim."))
    after = dict(entries.values_list("position", "pk"))
    assert len(after) > 2 and {n for n, pk in after.items() if before.get(n) != pk} == {0}
    assert [h.code for h in search(query="wombat").hits] == ["II.7"]
    assert search(query="quokka").total == 0


def test_an_index_of_another_revision_is_made_again_by_migrate(seeded):
    SearchChapter.objects.filter(chapter__code="II.4").update(revision=0)
    call_command("migrate", verbosity=0)
    chapter = Chapter.objects.get(code="II.4")
    assert SearchChapter.objects.get(chapter=chapter).revision == chapter.revision


def test_a_search_request_writes_nothing(client, seeded):
    chapter_import(document=sketch("II.7", thesis="Quokka claim."))
    with CaptureQueriesContext(connection) as queries:
        assert [h["code"] for h in api(client, "quokka")] == ["II.7"]
        site(client, "quokka")
    written = [q["sql"] for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")]
    assert written == []


def test_an_empty_or_overlong_query_gets_a_clear_message(client, seeded):
    assert "Nothing found" not in visible_text(client.get("/search/").content.decode())
    long = client.get("/search/", {"q": "x" * 201})
    assert long.status_code == 400 and "at most 200 characters" in long.content.decode()
    assert api(client, "   ") == [] and api(client, "") == []  # no words find nothing
    assert client.get("/api/v1/search").status_code == 422
    refused = client.get("/api/v1/search", {"q": "x" * 201})
    assert refused.status_code == 422 and "200" in refused.json()["errors"][0]["detail"]


def test_control_characters_in_a_query_are_read_as_spaces(client, seeded):
    assert any(h["code"] == "II.4" for h in api(client, "coreference\x00"))
    assert "<mark>coreference</mark>" in site(client, "\x00coreference\x07").lower()


# ---------------------------------------------------------------- any query, any database

OPERATORS = [
    "-",
    "--",
    '"',
    "or",
    "OR",
    "!",
    "&",
    "|",
    "(",
    ")",
    "<->",
    "<2>",
    ":*",
    "'",
    "\\",
    "\x00",
    "\u2013",
    "*",
    ":",
    "@@",
    "word",
    "attention",
    "the",
    "é",
    "𝛼",
]
QUERIES = st.one_of(
    st.text(max_size=260),
    st.lists(st.sampled_from(OPERATORS) | st.text(max_size=4), max_size=80).map("".join),
    st.lists(st.sampled_from(OPERATORS), max_size=80).map(" ".join),
    st.builds(
        lambda n, sep, w: sep.join(["-"] * n) + w,
        st.integers(0, 120),
        st.sampled_from(["", " "]),
        st.sampled_from(["word", '"a b"', "attention"]),
    ),
    st.integers(1, 3000).map(lambda n: "a " * n),
)


def assert_answered(client, q: str) -> None:
    """200, or 400 (site) / 422 (API, its status for every refused parameter) with the reason."""
    page = client.get("/search/", {"q": q})
    assert page.status_code in (200, 400), (q, page.status_code)
    if page.status_code == 400:
        assert re.search(r'id="search-error"[^>]*>[^<]*LIMIT_SEARCH_', page.content.decode()), q
    answer = client.get("/api/v1/search", {"q": q})
    assert answer.status_code in (200, 422), (q, answer.status_code)
    if answer.status_code == 422:
        [error] = answer.json()["errors"]
        assert error["parameter"] == "q" and "LIMIT_SEARCH_" in error["detail"], (q, error)
    assert (page.status_code == 400) == (answer.status_code == 422), q


@example("-" * 33 + "word")
@example("- " * 40 + "word")
@example('"' + "-" * 40 + 'word"')
@example("!" * 40 + "word")
@example("(" * 60 + "word")
@given(q=QUERIES)
@fuzzing(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_any_query_is_answered_with_results_or_the_reason_it_was_refused(client, seeded, q):
    assert_answered(client, q)


def test_dashes_before_a_word_exclude_it_however_many(client, seeded):
    with_it = api(client, "attention coreference")
    without = api(client, "attention -coreference")
    assert with_it and without and not {h["url"] for h in with_it} & {h["url"] for h in without}
    for dashes in ("--", "-" * 33, "-" * 150):
        assert api(client, f"attention {dashes}coreference") == without


def test_a_query_of_too_many_words_is_refused_naming_the_limit(client, seeded, settings):
    settings.LIMIT_SEARCH_TERMS = 3
    assert api(client, "scaled dot product") is not None
    page = client.get("/search/", {"q": "scaled dot product attention"})
    assert page.status_code == 400
    assert "at most 3 words (LIMIT_SEARCH_TERMS)" in visible_text(page.content.decode())
    refused = client.get("/api/v1/search", {"q": "scaled dot product attention"})
    assert refused.status_code == 422
    assert refused.json()["errors"] == [
        {
            "parameter": "q",
            "code": "limit",
            "detail": "a search is at most 3 words (LIMIT_SEARCH_TERMS)",
        }
    ]


def test_the_length_limit_is_the_setting(client, seeded, settings):
    settings.LIMIT_SEARCH_CHARS = 20
    assert client.get("/search/", {"q": "x" * 20}).status_code == 200
    refused = client.get("/api/v1/search", {"q": "x" * 21})
    assert refused.json()["errors"] == [
        {
            "parameter": "q",
            "code": "limit",
            "detail": "a search is at most 20 characters (LIMIT_SEARCH_CHARS)",
        }
    ]


def test_quoted_words_are_found_only_in_that_order(client, seeded):
    assert any(h["code"] == "II.4" for h in api(client, '"multi-head attention"'))
    assert api(client, '"attention multi-head zzz"') == []


AGREED = [
    "attention",
    '"soft lookup"',
    "the",
    "atention",
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


def test_the_sqlite_fallback_answers_any_query_too_and_the_documented_ones_alike(
    client, seeded, tmp_path
):
    """The embedded default, fuzzed the same way in a process of its own; its answers to the
    documented forms are PostgreSQL's, part for part and in the same order."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_", "CACHE_URL"))
    }
    env |= {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "API_ANON_RATE": "9999/min",
        "DJANGO_SETTINGS_MODULE": "curriculum.settings",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.curriculum.site.search_on_sqlite"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "searched on sqlite" in done.stdout
    chapter_import(document=sketch("II.7", thesis="Wombat attention claim."))
    [line] = [line for line in done.stdout.splitlines() if line.startswith("answers: ")]
    on_sqlite = json.loads(line.removeprefix("answers: "))
    on_postgresql = answers(client, AGREED)
    assert on_postgresql["atention"][0] > 0 and on_postgresql['"soft lookup"'][0] == 2
    assert on_postgresql["the"] == [0, []]
    assert on_sqlite == on_postgresql


def test_asking_for_verdicts_moves_the_chapter_but_rebuilds_no_index(seeded):
    """A verdict changes no text a reader searches: its revision moves, the index's revision
    of it with it (its entries are the same rows, untouched), and the index is as current as it
    was."""
    before = list(SearchEntry.objects.filter(chapter__code="II.3").values_list("pk", flat=True))
    revision = Chapter.objects.get(code="II.3").revision
    Reverify(code="II.3").execute()
    moved = Chapter.objects.get(code="II.3").revision
    assert moved > revision
    after = SearchEntry.objects.filter(chapter__code="II.3")
    assert before and sorted(after.values_list("pk", flat=True)) == sorted(before)
    assert SearchChapter.objects.get(chapter__code="II.3").revision == moved
    assert search_index_sync() == 0


def test_migrate_makes_the_cache_table_its_search_rebuild_renders_through(seeded, settings):
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
