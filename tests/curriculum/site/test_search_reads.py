"""Searches that write nothing: found with a link to the place, ranked, and any query answered
with results or the reason it was refused. They read the seed imported and indexed once for
the module (the work its commit does, the index rebuild, run as the commit runs it);
test_search.py holds the searches that follow a writer's commit."""

import re

import pytest
from hypothesis import HealthCheck, example, given
from hypothesis import settings as fuzzing
from hypothesis import strategies as st

from curriculum.models import StrandItem
from tests.curriculum.site.test_search import api, site
from tests.curriculum.site.test_views_chapter_page import visible_text

pytestmark = pytest.mark.django_db


def test_a_word_from_the_prose_is_found_with_a_link_to_its_section(client, indexed_seed):
    html = site(client, "coreference")
    assert 'href="/chapters/II.4/#problem"' in html
    assert "<mark>coreference</mark>" in html.lower()
    assert "1 result" in visible_text(html) or "results" in visible_text(html)


def test_results_are_ranked_a_title_before_a_passing_mention(client, indexed_seed):
    hits = api(client, "multi-head attention")
    assert hits[0]["code"] == "II.4" and hits[0]["kind"] == "chapter"
    assert hits[0]["url"] == "/chapters/II.4/"


def test_the_api_links_a_proposition_and_a_notation_row(client, indexed_seed):
    urls = [h["url"] for h in api(client, "partitioning preserves")]
    assert "/chapters/II.4/" in urls
    assert "/chapters/II.4/#notation" in [h["url"] for h in api(client, "sequence length")]


def test_a_problem_is_headed_as_readers_name_it_never_by_its_variant(client, indexed_seed):
    hits = [h for h in api(client, "comparisons subtractions") if h["kind"] == "problem"]
    assert hits and all(re.fullmatch(r"(Worked problem|Exercise) \d+", h["heading"]) for h in hits)
    html = site(client, "comparisons subtractions")
    assert "cost-count" not in html and re.search(r"search-hit-heading.*Exercise \d+", html)


def test_book_0_entries_are_found(client, indexed_seed):
    assert any(h["code"] == "0.LA.01" for h in api(client, "row-major"))


def test_an_unpublished_strand_item_is_never_found_on_either_surface(client, indexed_seed):
    assert StrandItem.objects.filter(chapter__code="II.4", published=False).exists()
    hidden = StrandItem.objects.filter(chapter__code="II.4", published=False).first()
    word = max(re.findall(r"[A-Za-z]{6,}", hidden.title + " " + hidden.body), key=len)
    assert hidden.title not in {h["heading"] for h in api(client, word)}
    headings = re.findall(r'class="search-hit-heading"><a [^>]+>([^<]+)<', site(client, word))
    assert headings and hidden.title not in headings  # found elsewhere, never as itself


def test_an_empty_or_overlong_query_gets_a_clear_message(client, indexed_seed):
    assert "Nothing found" not in visible_text(client.get("/search/").content.decode())
    long = client.get("/search/", {"q": "x" * 201})
    assert long.status_code == 400 and "at most 200 characters" in long.content.decode()
    assert api(client, "   ") == [] and api(client, "") == []  # no words find nothing
    assert client.get("/api/v1/search").status_code == 422
    refused = client.get("/api/v1/search", {"q": "x" * 201})
    assert refused.status_code == 422 and "200" in refused.json()["errors"][0]["detail"]


def test_control_characters_in_a_query_are_read_as_spaces(client, indexed_seed):
    assert any(h["code"] == "II.4" for h in api(client, "coreference\x00"))
    page = site(client, "\x00coreference\x07\x1b")
    assert "<mark>coreference</mark>" in page.lower()
    # the page says the query as searched: no control character in its title, box or status
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", page)
    assert 'value="coreference"' in page


def answer(client, q: str) -> dict:
    response = client.get("/api/v1/search", {"q": q, "limit": 50})
    assert response.status_code == 200, response.content
    return response.json()


def test_a_swap_of_two_letters_finds_what_the_word_would_and_says_so(client, indexed_seed):
    right, swapped = answer(client, "weights"), answer(client, "wieghts")
    assert swapped["count"] == right["count"] > 0 and swapped["items"] == right["items"]
    assert swapped["read_as"] == {"wieght": ["weight"]}
    page = visible_text(site(client, "wieghts"))
    assert "No chapter holds “wieght”: searched for “weight” instead." in page


def test_two_misspelt_words_find_the_parts_holding_both(client, indexed_seed):
    both = answer(client, "sofmax wieghts")
    assert both["items"] == answer(client, "softmax weights")["items"] and both["items"]
    assert both["read_as"] == {"sofmax": ["softmax"], "wieght": ["weight"]}
    softmax = {h["url"] for h in answer(client, "softmax")["items"]}
    assert {h["url"] for h in both["items"]} < softmax  # parts holding both, not either


def test_a_swap_in_a_short_word_or_in_a_long_one_is_read_too(client, indexed_seed):
    for typo, word in [("qeury", "query"), ("atetntion", "attention")]:
        misspelt = answer(client, typo)
        assert misspelt["read_as"] == {typo: [word]}
        assert misspelt["items"] == answer(client, word)["items"] != []


def test_a_word_far_from_every_course_word_finds_nothing(client, indexed_seed):
    for far in ["platypus", "zqxjv", "wombat quokka"]:
        assert answer(client, far) | {"next": None} == {
            "items": [],
            "count": 0,
            "offset": 0,
            "limit": 50,
            "next": None,
            "previous": None,
            "read_as": {},
        }


def test_a_word_the_course_holds_is_searched_as_itself_never_its_neighbours(client, indexed_seed):
    held = answer(client, "weight")  # "height", one letter off, is held too
    assert held["read_as"] == {} and answer(client, "height")["items"]
    assert all("<mark>weight" in h["snippet_html"].lower() for h in held["items"])


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
def test_any_query_is_answered_with_results_or_the_reason_it_was_refused(client, indexed_seed, q):
    assert_answered(client, q)


def test_dashes_before_a_word_exclude_it_however_many(client, indexed_seed):
    with_it = api(client, "attention coreference")
    without = api(client, "attention -coreference")
    assert with_it and without and not {h["url"] for h in with_it} & {h["url"] for h in without}
    for dashes in ("--", "-" * 33, "-" * 150):
        assert api(client, f"attention {dashes}coreference") == without


def test_a_query_of_too_many_words_is_refused_naming_the_limit(client, indexed_seed, settings):
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


def test_the_length_limit_is_the_setting(client, indexed_seed, settings):
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


def test_quoted_words_are_found_only_in_that_order(client, indexed_seed):
    assert any(h["code"] == "II.4" for h in api(client, '"multi-head attention"'))
    assert api(client, '"attention multi-head zzz"') == []
