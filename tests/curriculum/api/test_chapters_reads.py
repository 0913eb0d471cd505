"""Reading through the API: books, chapter lists, a chapter as readers see it, its releases."""

from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.curriculum.api.conftest import released


def test_books_list_their_visible_chapters_in_order(client, seeded):
    body = client.get("/api/v1/books").json()
    numerals = [b["numeral"] for b in body["items"]]
    assert numerals[0] == "0" and "II" in numerals
    book_ii = next(b for b in body["items"] if b["numeral"] == "II")
    assert [c["code"] for c in book_ii["chapters"]] == ["II.3", "II.4"]
    assert book_ii["chapters"][1]["owes"] == 15


def test_one_book_is_found_by_numeral_and_an_unknown_one_is_404(client, seeded):
    assert client.get("/api/v1/books/0").json()["chapters"][0]["code"] == "0.LA.01"
    assert client.get("/api/v1/books/XL").status_code == 404


def test_chapters_filter_by_book_maturity_and_state(client, seeded):
    def codes(query):
        return [c["code"] for c in client.get(f"/api/v1/chapters?{query}").json()["items"]]

    assert codes("book=0") == ["0.LA.01", "0.MC.07"]
    assert codes("maturity=M3") == ["II.4"]
    assert "II.4" in codes("state=in_progress")
    assert codes("state=draft") == []


def test_chapter_lists_are_paginated_with_links_to_the_windows_beside(client, seeded):
    page = client.get("/api/v1/chapters?book=0&limit=1&offset=1").json()
    assert page["count"] == 2 and len(page["items"]) == 1
    assert (page["offset"], page["limit"], page["next"]) == (1, 1, None)
    first = client.get(page["previous"]).json()
    assert first["offset"] == 0 and first["previous"] is None
    assert first["items"][0]["code"] == "0.LA.01" and "book=0" in first["next"]
    assert client.get(first["next"]).json()["items"] == page["items"]
    assert client.get("/api/v1/chapters?limit=0").status_code == 422


def test_a_page_is_bounded_by_the_named_limit(client, seeded, settings):
    too_many = client.get(f"/api/v1/books?limit={settings.LIMIT_API_PAGE + 1}")
    assert too_many.status_code == 422 and "limit" in str(too_many.json())
    assert client.get("/api/v1/books").json()["limit"] == settings.LIMIT_API_PAGE_DEFAULT


def test_a_chapter_code_with_dots_reads_its_working_copy_and_derived_counts(client, seeded):
    response = client.get("/api/v1/chapters/II.4")
    body = response.json()
    assert response.status_code == 200
    assert body["code"] == "II.4" and body["release"] is None
    assert body["derived"]["owes"] == 15
    assert body["thesis_html"] and body["derived"]["strands"][0]["kind"] == "basics"
    assert client.get("/api/v1/chapters/0.LA.01").json()["code"] == "0.LA.01"


def test_a_propositions_title_comes_rendered_beside_its_markdown(client, seeded):
    """As every other Markdown text of the chapter has its `*_html`; the title had none."""
    proposition = client.get("/api/v1/chapters/II.3").json()["propositions"][0]
    assert proposition["title"] == "Softmax ignores a common shift."
    assert proposition["title_html"] == "<p>Softmax ignores a common shift.</p>\n"


def test_each_problem_carries_its_verification_provenance(client, seeded):
    problem = client.get("/api/v1/chapters/II.3").json()["problems"][0]
    assert set(problem["verification"]) >= {
        "status",
        "max_abs_error",
        "tolerance",
        "engine_version",
        "decided_at",
    }


def test_an_unknown_or_malformed_code_is_404_or_422(client, seeded):
    assert client.get("/api/v1/chapters/II.99").status_code == 404
    assert client.get("/api/v1/chapters/ii.4").status_code == 422
    assert client.get("/api/v1/nowhere").json() == {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "Not Found",
        "errors": [],
    }


def test_a_draft_is_404_to_anonymous_and_shown_to_staff(client, seeded, alice, alice_token):
    Chapter.objects.filter(code="II.4").update(state="draft")
    assert client.get("/api/v1/chapters/II.4").status_code == 404
    assert client.get("/api/v1/chapters/II.4", **alice_token).status_code == 200
    client.force_login(alice)
    assert client.get("/api/v1/chapters/II.4").status_code == 200


def test_a_bad_token_is_refused_rather_than_read_as_anonymous(client, seeded):
    response = client.get("/api/v1/chapters/II.4", HTTP_AUTHORIZATION="Bearer cur_nope")
    assert response.status_code == 401


def test_a_released_chapter_serves_its_release_not_its_newer_working_copy(client, books, erin):
    released("II.7", erin)
    Chapter.objects.filter(code="II.7").update(thesis="Rewritten.")
    body = client.get("/api/v1/chapters/II.7").json()
    assert body["release"] == 1 and body["thesis"] == "A claim."


def test_staff_preview_shows_the_working_copy(client, books, erin, erin_token):
    released("II.7", erin)
    Chapter.objects.filter(code="II.7").update(thesis="Rewritten.")
    preview = client.get("/api/v1/chapters/II.7?preview=true", **erin_token).json()
    assert preview["thesis"] == "Rewritten." and preview["release"] is None
    assert client.get("/api/v1/chapters/II.7?preview=true").json()["thesis"] == "A claim."


def test_releases_are_listed_newest_first_and_each_is_served_as_released(client, books, erin):
    chapter = released("II.7", erin)
    Chapter.objects.filter(pk=chapter.pk).update(thesis="Rewritten.")
    chapter_publish(chapter=Chapter.objects.get(pk=chapter.pk), user=erin)
    listed = client.get("/api/v1/chapters/II.7/releases?limit=1").json()
    assert [r["number"] for r in listed["items"]] == [2] and listed["count"] == 2
    assert [r["number"] for r in client.get(listed["next"]).json()["items"]] == [1]
    one = client.get("/api/v1/chapters/II.7/releases/1").json()
    assert one["release"] == 1 and one["latest_release"] == 2 and one["title"] == "A Sketch"
    assert client.get("/api/v1/chapters/II.7/releases/3").status_code == 404


def test_ping_answers(client, db):
    assert client.get("/api/v1/ping").json() == {"ok": True}


def test_an_offset_past_any_list_is_an_empty_page_and_past_its_limit_is_422(
    client, seeded, settings
):
    response = client.get(f"/api/v1/chapters?offset={settings.LIMIT_API_OFFSET}")
    assert response.status_code == 200
    assert response.json()["items"] == []
    for offset in (settings.LIMIT_API_OFFSET + 1, 99999999999999999999):
        refused = client.get(f"/api/v1/chapters?offset={offset}")
        [item] = refused.json()["errors"]
        assert refused.status_code == 422 and item["parameter"] == "offset"
        most = settings.LIMIT_API_OFFSET
        assert item["detail"] == f"Input should be less than or equal to {most} (LIMIT_API_OFFSET)"


def test_from_past_the_end_previous_is_the_last_window_with_items(client, seeded):
    """As search's (test_search_pages): `previous` from an empty window past the end leads
    back to items, not to offset 0 nor to another empty window."""
    count = client.get("/api/v1/chapters").json()["count"]
    assert count > 2
    past = client.get(f"/api/v1/chapters?limit=2&offset={count + 10}").json()
    assert past["items"] == [] and past["next"] is None
    back = client.get(past["previous"]).json()
    assert back["offset"] == count - 2 and len(back["items"]) == 2
    inside = client.get("/api/v1/chapters?limit=2&offset=3").json()
    assert client.get(inside["previous"]).json()["offset"] == 1


def test_a_chapter_carries_the_works_it_cites(client, seeded):
    body = client.get("/api/v1/chapters/II.3").json()
    assert [(r["number"], r["key"]) for r in body["references"]][:2] == [
        (1, "milakov2018"),
        (2, "bahdanau2015"),
    ]
    assert "Online normalizer calculation for softmax" in body["references"][0]["html"]
    assert client.get("/api/v1/chapters/II.4").json()["references"] == []
