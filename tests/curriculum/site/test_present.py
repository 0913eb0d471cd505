"""What a reader is shown, in the order a reader needs it: the chapter, then its teaching, then
its worked problems, then its exercises; every problem by the name a reader uses, never an
author's slug; no section, chip or count with nothing in it."""

import re

from django.test import Client

from curriculum.domain.chapter_files import chapter_import
from curriculum.models import Problem
from tests.conftest import sketch
from tests.curriculum.site.test_views_chapter_page import visible_text


def article(html: str) -> str:
    return html.split('<article class="chapter">')[1].split("</article>")[0]


def read_through(html: str) -> str:
    """The chapter's text as read from the top, past its contents list."""
    return visible_text(re.sub(r'<nav class="contents".*?</nav>', "", article(html), flags=re.S))


def test_the_chapter_teaches_before_its_worked_problems_and_the_exercises_come_last(
    client, released
):
    text = read_through(client.get("/chapters/II.3/").content.decode())
    order = ["Propositions", "The strands, written out", "Worked problems", "Exercises"]
    assert [text.index(heading) for heading in order] == sorted(
        text.index(heading) for heading in order
    )
    # II.3's own teaching says "Check it on the worked problems below": now they are below it
    assert text.index("Check it on the worked problems below") < text.index("Worked problem 1")


def test_the_contents_list_the_sections_in_the_order_the_page_has_them(client, released):
    html = client.get("/chapters/II.3/").content.decode()
    contents = html.split('<nav class="contents"')[1].split("</nav>")[0]
    listed = re.findall(r'<li><a href="#([^"]+)"', contents)
    sections = [i for i in re.findall(r'<h2 id="([^"]+)"', article(html)) if i != "contents"]
    problems = re.findall(r'<li class="problem problem-\w+" id="([^"]+)"', html)
    assert [i for i in listed if not i.startswith("problem-")] == sections
    assert [i for i in listed if i.startswith("problem-")] == problems
    assert sections[-4:] == ["strand-notes", "worked", "exercises", "references"]


def test_problems_are_named_as_readers_name_them_and_no_slug_is_shown(client, released):
    html = client.get("/chapters/II.3/").content.decode()
    headings = re.findall(r'<h3 class="problem-heading">([^<]+)</h3>', html)
    assert headings == [f"Worked problem {n}" for n in (1, 2, 3)] + [
        f"Exercise {n}" for n in range(1, 7)
    ]
    contents = html.split('<nav class="contents"')[1].split("</nav>")[0]
    assert "Worked problem 1</a></li>" in contents and "Exercise 6</a></li>" in contents
    text = visible_text(html)
    for variant in Problem.objects.filter(chapter__code="II.3").values_list("variant", flat=True):
        assert variant not in text, variant


def test_the_practice_page_names_the_problem_as_the_chapter_does(client, released):
    page = client.get("/chapters/II.3/problems/p5/", {"instance": 0}).content.decode()
    assert "<title>Practise exercise 2 of II.3" in page
    assert '<h1 class="site-title">Practise exercise 2 of II.3</h1>' in page
    assert "p5" not in visible_text(page) and "cost-count" not in visible_text(page)


def test_a_book_0_entry_with_nothing_asked_shows_no_empty_block(client, seeded):
    html = client.get("/chapters/0.LA.01/").content.decode()
    text = visible_text(html)
    assert "0/0" not in text  # neither a strand nor a quota counts nothing against nothing
    assert 'id="worked"' not in html and "Worked problems" not in text
    assert 'href="#worked"' not in html
    assert "mathematics derive it, then compute it nothing required at this level" in text
    assert "2/2 what the words mean" in text


def test_a_missing_section_is_left_out_not_shown_empty(client, books):
    chapter_import(document=sketch("II.7"))  # no "Before you start"
    html = client.get("/chapters/II.7/").content.decode()
    assert 'id="before"' not in html and 'href="#before"' not in html
    assert "Before you start" not in visible_text(html)
    assert 'id="problem"' in html  # it has a problem statement


def test_every_strand_bar_of_the_lists_is_labelled_in_words_on_the_page(client, seeded):
    for page in ("/", "/books/0/", "/books/II/"):
        html = Client().get(page).content.decode()
        strips = re.findall(r'<ul class="strand-strip" aria-label="([^"]+)">(.*?)</ul>', html, re.S)
        assert strips, page
        for label, strip in strips:
            assert label.startswith("Strands of ")
            assert "title=" not in strip  # a word seen only on hover is no label
            minis = re.findall(r'<li class="strand-mini">(.*?)</li>', strip)
            assert len(minis) == 5
            for mini in minis:
                if "<progress" in mini:
                    assert re.match(r'<span class="strand-mini-label">\w+ <span', mini), mini
                    assert 'aria-hidden="true"' in mini  # the words say it, once
                else:
                    assert "none required" in mini
    text = visible_text(Client().get("/").content.decode())
    assert "Multi-Head Attention" in text and "basics 2/11 concept 2/2 theory 0/4" in text
    assert "0.LA.01" in text and "mathematics none required" in text
