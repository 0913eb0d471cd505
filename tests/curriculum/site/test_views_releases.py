"""A released chapter is read as released: later edits wait for the next release, and earlier
releases stay readable with a pointer to the latest."""

import re

from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.curriculum.site.test_views_chapter_page import visible_text


def edit_working_copy(title: str) -> Chapter:
    Chapter.objects.filter(code="II.3").update(title=title, thesis="An unreleased thesis.")
    return Chapter.objects.get(code="II.3")


def test_readers_see_the_release_not_the_newer_working_copy(client, released):
    edit_working_copy("Edited After Release")
    text = visible_text(client.get("/chapters/II.3/").content.decode())
    assert re.search(r"Release 1, \d{1,2} \w+ \d{4}", text)
    assert "Scaled Dot-Product Attention" in text
    assert "Edited After Release" not in text and "An unreleased thesis." not in text


def test_the_home_page_lists_a_released_chapter_by_its_released_title(client, released):
    edit_working_copy("Edited After Release")
    text = visible_text(client.get("/books/II/").content.decode())
    assert "Scaled Dot-Product Attention" in text and "Edited After Release" not in text


def test_an_earlier_release_says_so_and_links_to_the_latest(client, released):
    chapter_publish(chapter=edit_working_copy("Second Edition"))
    earlier = client.get("/chapters/II.3/releases/1/").content.decode()
    assert "an earlier release" in visible_text(earlier)
    assert re.search(r'<a href="/chapters/II.3/">Read the latest, release 2</a>', earlier)
    assert "Scaled Dot-Product Attention" in visible_text(earlier)
    latest = visible_text(client.get("/chapters/II.3/").content.decode())
    assert "Second Edition" in latest and "Release 2," in latest
    assert "an earlier release" not in latest


def test_the_latest_release_at_its_own_address_carries_no_earlier_release_note(client, released):
    assert "an earlier release" not in client.get("/chapters/II.3/releases/1/").content.decode()


def test_a_release_has_one_address(client, released):
    """Written as its links write it: another spelling of the number is no address at all."""
    assert client.get("/chapters/II.3/releases/1/").status_code == 200
    for other in ("01", "١", "１", "+1", "0"):
        assert client.get(f"/chapters/II.3/releases/{other}/").status_code == 404, other
        assert client.get(f"/chapters/II.3/releases/{other}/pdf").status_code == 404, other


def test_an_unchanged_chapter_is_revalidated_with_a_304(client, released):
    first = client.get("/chapters/II.3/")
    again = client.get("/chapters/II.3/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert "no-cache" in first["Cache-Control"]


def test_a_new_release_changes_the_etag(client, released):
    before = client.get("/chapters/II.3/")["ETag"]
    chapter_publish(chapter=edit_working_copy("Second Edition"))
    after = client.get("/chapters/II.3/", HTTP_IF_NONE_MATCH=before)
    assert after.status_code == 200 and after["ETag"] != before


def test_a_draft_answers_404_even_to_a_conditional_request(client, seeded):
    etag = client.get("/chapters/II.4/")["ETag"]
    Chapter.objects.filter(code="II.4").update(state=Chapter.State.DRAFT)
    assert client.get("/chapters/II.4/", HTTP_IF_NONE_MATCH=etag).status_code == 404
