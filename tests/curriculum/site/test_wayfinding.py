"""A reader finds their way: the chapters either side in book order, the chapter's own
contents, its releases with what changed, notation set as mathematics, and proper 404/500."""

import re

import pytest
from django.test import Client

from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.curriculum.site.test_views_chapter_page import visible_text


def neighbour_links(html: str) -> dict[str, str]:
    return dict(re.findall(r'rel="(prev|next)" href="([^"]+)"', html))


def test_a_chapter_links_the_chapters_before_and_after_it_in_book_order(client, seeded):
    assert neighbour_links(client.get("/chapters/II.3/").content.decode()) == {
        "prev": "/chapters/0.MC.07/",
        "next": "/chapters/II.4/",
    }
    assert neighbour_links(client.get("/chapters/0.LA.01/").content.decode()) == {
        "next": "/chapters/0.MC.07/"
    }
    assert neighbour_links(client.get("/chapters/II.4/").content.decode()) == {
        "prev": "/chapters/II.3/"
    }


def test_a_draft_is_never_a_neighbour_to_a_reader(client, seeded):
    Chapter.objects.filter(code="II.3").update(state=Chapter.State.DRAFT)
    html = client.get("/chapters/II.4/").content.decode()
    assert neighbour_links(html) == {"prev": "/chapters/0.MC.07/"}
    assert "II.3" not in html.split('class="neighbours"')[1]


def test_a_released_neighbour_is_named_by_its_release_not_its_working_copy(client, released):
    Chapter.objects.filter(code="II.3").update(title="Unreleased New Title")
    text = visible_text(client.get("/chapters/II.4/").content.decode())
    assert "Previous II.3 Scaled Dot-Product Attention" in text
    assert "Unreleased New Title" not in text


def test_a_neighbour_released_under_a_new_title_changes_the_page_s_etag(client, released):
    before = client.get("/chapters/II.4/")["ETag"]
    assert client.get("/chapters/II.4/", HTTP_IF_NONE_MATCH=before).status_code == 304
    chapter_publish(chapter=Chapter.objects.filter(code="II.3").first())  # same title: same page
    assert client.get("/chapters/II.4/", HTTP_IF_NONE_MATCH=before).status_code == 304
    Chapter.objects.filter(code="II.3").update(title="Second Edition")
    chapter_publish(chapter=Chapter.objects.get(code="II.3"))
    again = client.get("/chapters/II.4/", HTTP_IF_NONE_MATCH=before)
    assert again.status_code == 200 and "Second Edition" in again.content.decode()


def test_the_chapter_opens_with_its_own_contents_linking_every_section_and_problem(
    client, released
):
    html = client.get("/chapters/II.3/").content.decode()
    contents = html.split('<nav class="contents"')[1].split("</nav>")[0]
    targets = re.findall(r'href="#([^"]+)"', contents)
    assert targets[:3] == ["built", "before", "problem"]
    assert "worked" in targets and "exercises" in targets
    problems = [t for t in targets if t.startswith("problem-")]
    assert len(problems) == html.count('class="problem problem-')
    for target in targets:
        assert f'id="{target}"' in html, target


def test_the_releases_page_lists_each_release_with_its_date_and_what_changed(client, released):
    Chapter.objects.filter(code="II.3").update(title="Second Edition", thesis="A new claim.")
    chapter_publish(chapter=Chapter.objects.get(code="II.3"))
    response = client.get("/chapters/II.3/releases/")
    assert response.status_code == 200
    text = visible_text(response.content.decode())
    assert re.search(r"Release 2, \d{1,2} \w+ \d{4}", text)
    assert text.index("Release 2") < text.index("Release 1")
    assert "Retitled from “Scaled Dot-Product Attention”." in text
    assert "Revised: the thesis." in text and "First release." in text
    assert 'href="/chapters/II.3/releases/1/"' in response.content.decode()


def test_the_releases_page_of_an_unreleased_chapter_says_so(client, seeded):
    text = visible_text(client.get("/chapters/II.4/releases/").content.decode())
    assert "has not been released yet" in text


def test_the_releases_page_of_a_draft_or_unknown_chapter_is_404(client, released):
    Chapter.objects.filter(code="II.3").update(state=Chapter.State.DRAFT)
    assert client.get("/chapters/II.3/releases/").status_code == 404
    assert client.get("/chapters/IX.9/releases/").status_code == 404


def test_notation_symbols_are_typeset_as_mathematics(client, seeded):
    html = client.get("/chapters/II.4/").content.decode()
    notation = html.split('<ul class="notation">')[1].split("</ul>")[0]
    assert "<code" not in notation
    assert "<msub><mi>d</mi><mi>k</mi></msub>" in notation  # d_k, the symbol
    assert notation.count("<math") == 7 + 3  # every symbol, and T×d_k, T×d_k, T×d_v


@pytest.mark.parametrize("path", ["/no/such/page/", "/chapters/IX.9/", "/books/XL/"])
def test_a_missing_page_is_the_site_s_own_404_never_the_debug_listing(client, seeded, path):
    response = client.get(path)
    assert response.status_code == 404
    html = response.content.decode()
    assert "There is no page here" in html and 'href="/search/"' in html
    assert "URLconf" not in html and "urlpatterns" not in html


def test_a_crash_is_the_site_s_own_500_without_a_traceback(seeded, monkeypatch, settings):
    settings.DEBUG = False

    def broken(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr("curriculum.site.views.books_for_reader", broken)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong on our side" in html
    assert "secret internals" not in html and "Traceback" not in html
