"""Search as readers meet it: snippets in the text they read, typos forgiven, formulas found by
what they show, and results a page at a time with the total, on the site and in the API, and on
the embedded default's SQLite as on PostgreSQL. They read the seed written and indexed once for
the module; a test's own chapter is indexed as its commit would index it (`committed`)."""

import json
import os
import re
import subprocess
import sys

import pytest

from curriculum.domain.chapter_files import chapter_import
from tests.conftest import sketch
from tests.curriculum.site.test_search import AGREED, answers
from tests.curriculum.site.test_views_chapter_page import visible_text
from tests.processes import ROOT

pytestmark = pytest.mark.django_db


def api(client, **params) -> dict:
    response = client.get("/api/v1/search", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_snippet_shows_the_words_and_mathematics_readers_see_never_source(
    client, indexed_seed, committed
):
    thesis = r"Backward, **the gradient** is $\partial L/\partial X = G W^\top$ for Zanzibar."
    committed(lambda: chapter_import(document=sketch("II.7", thesis=thesis)))
    [hit] = api(client, q="zanzibar")["items"]
    assert hit["snippet_html"] == (
        "Backward, the gradient is ∂L/∂X = GW⊤ for <mark>Zanzibar</mark>. A problem."
    )


def test_a_letter_group_inside_a_formula_is_found_and_marked(client, indexed_seed, committed):
    thesis = r"Scores are $QK^\top/\sqrt{d_k}$ here."
    committed(lambda: chapter_import(document=sketch("II.7", thesis=thesis)))
    [hit] = [h for h in api(client, q="QK")["items"] if h["code"] == "II.7"]
    assert "<mark>QK</mark>⊤/√(dₖ)" in hit["snippet_html"]
    assert any(h["code"] == "II.7" for h in api(client, q="dk")["items"])


def test_a_misspelt_word_finds_what_the_word_would_and_says_so(client, indexed_seed):
    right, typo = api(client, q="attention"), api(client, q="atention")
    assert typo["count"] == right["count"] > 0 and typo["items"] == right["items"]
    assert typo["read_as"] == {"atention": ["attention"]}
    page = client.get("/search/", {"q": "atention"}).content.decode()
    assert "No chapter holds “atention”: searched for “attention” instead." in visible_text(page)


def test_a_short_or_quoted_word_is_never_guessed_at(client, indexed_seed):
    assert api(client, q="qx")["count"] == 0
    assert api(client, q='"atention"')["count"] == 0


def test_common_words_alone_find_nothing_and_the_page_says_why(client, indexed_seed):
    assert api(client, q="the of")["count"] == 0
    page = visible_text(client.get("/search/", {"q": "the"}).content.decode())
    assert "common words such as “the” are not searched" in page


def test_the_api_gives_the_total_and_windows_that_add_up_to_it(client, indexed_seed):
    first = api(client, q="attention", limit=5)
    assert first["count"] > 10 and len(first["items"]) == 5 and first["previous"] is None
    assert "offset=5" in first["next"] and "limit=5" in first["next"]
    second = client.get(first["next"]).json()
    assert second["offset"] == 5 and "offset=0" in second["previous"]
    every = api(client, q="attention", limit=50, offset=0)["items"]
    assert first["items"] + second["items"] == every[:10]


def test_from_past_the_end_previous_is_the_last_window_with_items(client, indexed_seed):
    """As every API list's: not offset - limit, itself empty."""
    count = api(client, q="attention")["count"]
    past = api(client, q="attention", limit=5, offset=count + 10)
    assert past["items"] == [] and past["next"] is None
    back = client.get(past["previous"]).json()
    assert back["offset"] == count - 5 and len(back["items"]) == 5


def test_the_page_past_the_end_links_back_to_the_last_window_with_results(client, indexed_seed):
    """A reader who followed an old link past the end is not stranded: "Previous" leads to
    results, as the API's `previous` does."""
    count = api(client, q="attention")["count"]
    page = client.get("/search/", {"q": "attention", "offset": count + 10}).content.decode()
    assert f"No more results for “attention” ({count} in all)" in page
    back = re.search(r'<a rel="prev" href="\?q=attention&amp;offset=(\d+)">Previous</a>', page)
    assert back and 0 <= int(back[1]) < count
    shown = client.get("/search/", {"q": "attention", "offset": back[1]}).content.decode()
    assert 'class="search-hit"' in shown


def test_the_page_takes_an_offset_only_as_its_links_write_it(client, indexed_seed):
    assert client.get("/search/", {"q": "attention", "offset": "5"}).status_code == 200
    for other in ("05", "５", "٥", "+5", " 5", "5.0"):
        refused = client.get("/search/", {"q": "attention", "offset": other})
        assert refused.status_code == 400 and "LIMIT_SEARCH_OFFSET" in refused.content.decode()


def test_a_window_past_its_limits_is_refused_naming_the_limit(client, indexed_seed):
    """The API's schema states the bounds (schemathesis holds clients to them), so the API
    refuses past them as its schema says, naming the setting as the page does."""
    for params, error in (
        ({"limit": 51}, "Input should be less than or equal to 50 (LIMIT_SEARCH_PAGE)"),
        ({"limit": 0}, "Input should be greater than or equal to 1"),
        ({"offset": 1001}, "Input should be less than or equal to 1000 (LIMIT_SEARCH_OFFSET)"),
        ({"offset": -1}, "Input should be greater than or equal to 0"),
    ):
        refused = client.get("/api/v1/search", {"q": "attention", **params})
        [parameter] = params
        [given] = refused.json()["errors"]
        assert refused.status_code == 422 and given["detail"] == error
        assert given["parameter"] == parameter and given["code"].endswith("_equal")
    schema = client.get("/api/v1/openapi.json").json()["paths"]["/api/v1/search"]["get"]
    bounds = {p["name"]: p["description"] for p in schema["parameters"]}
    assert "(LIMIT_SEARCH_PAGE)" in bounds["limit"] and "(LIMIT_SEARCH_OFFSET)" in bounds["offset"]
    page = client.get("/search/", {"q": "attention", "offset": "x"})
    assert page.status_code == 400 and "(LIMIT_SEARCH_OFFSET)" in page.content.decode()


def test_the_page_counts_every_result_and_links_the_next_and_previous(client, indexed_seed):
    total = api(client, q="attention")["count"]
    assert total > 20
    first = client.get("/search/", {"q": "attention"}).content.decode()
    assert f"Results 1–20 of {total} for “attention”" in visible_text(first)
    assert len(re.findall(r'class="search-hit"', first)) == 20
    assert 'rel="next" href="?q=attention&amp;offset=20"' in first and 'rel="prev"' not in first
    second = client.get("/search/", {"q": "attention", "offset": 20}).content.decode()
    assert f"Results 21–{min(40, total)} of {total}" in visible_text(second)
    assert 'rel="prev" href="?q=attention&amp;offset=0"' in second and 'start="21"' in second


def test_the_sqlite_fallback_answers_any_query_too_and_the_documented_ones_alike(
    client, indexed_seed, committed, tmp_path
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
    committed(lambda: chapter_import(document=sketch("II.7", thesis="Wombat attention claim.")))
    [line] = [line for line in done.stdout.splitlines() if line.startswith("answers: ")]
    on_sqlite = json.loads(line.removeprefix("answers: "))
    on_postgresql = answers(client, AGREED)
    assert on_postgresql["atention"][0] > 0 and on_postgresql['"soft lookup"'][0] == 2
    assert all(on_postgresql[q][0] > 0 for q in ("sofmax wieghts", "qeury", "atetntion"))
    assert on_postgresql["the"] == [0, []]
    assert on_sqlite == on_postgresql
