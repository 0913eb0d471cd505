"""The chapter page as a reader gets it: the seed's words in the seed's order."""

import re

import pytest
from django.contrib.auth.models import User

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter, Release
from tests.conftest import sketch, verify_now

SEED_LINES_IN_ORDER = [
    "Md. Asif Uddin",
    "Chapter 4",
    "II.4",
    "Multi-Head Attention",
    "Heads are slices of one budget, not copies of one mechanism, and partitioning preserves the "
    "total cost.",
    "One attention pattern per relation type; several relations are needed at once.",
    "How this chapter is built",
    "M3",
    "Load-bearing",
    "The content is mathematics. Understanding is demonstrated by computation, not recall.",
    "basics",
    "2/11",
    "what the words mean",
    "concept",
    "2/2",
    "what to picture",
    "theory",
    "0/4",
    "why it works, and when it does not",
    "mathematics",
    "0/15",
    "derive it, then compute it",
    "practice",
    "0/9",
    "build it, break it, read the papers",
    "Five strands, not one. Mathematics is the spine; the other four are the body.",
    "Before you start",
    "The problem",
    "A single attention distribution must commit to one notion of relevance per position.",
    "Fig. 4 —",
    "One attention budget divided into four heads.",
    "Apparatus",
    "The mathematics this chapter leans on, held in Book 0 so it can be assumed here without "
    "being taught here. Not a gate — follow a link when a step stops making sense.",
    "Vectors, matrices and the row-major convention",
    "0.LA.01",
    "·",
    "The chain rule for matrix products",
    "0.MC.07",
    "Notation",
    "Number of attention heads",
    "Model width",
    "Sequence length in tokens",
    "Propositions",
    "Prop. 1",
    "Heads are slices of one budget, not copies of one mechanism.",
    "Worked problems",
    "0/5 problems",
    "0/4 variants",
    "0/10 exercises",
    "owes 15 more",
    "Not yet written. At M3 this chapter owes 5 worked problems across 4 distinct variants, and "
    "10 exercises, every one with a published solution.",
    "The build enforces that from the day the chapter is marked published.",
]


def visible_text(html: str) -> str:
    text = re.sub(r"<annotation.*?</annotation>", "", html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", text.replace("&amp;", "&").replace("&#x27;", "'"))


def assert_in_order(text: str, lines: list[str]) -> None:
    at = 0
    for line in lines:
        found = text.find(line, at)
        assert found >= 0, f"{line!r} missing after position {at}: ...{text[at : at + 200]}"
        at = found + len(line)


def test_the_seed_chapter_shows_every_element_of_the_seed_in_order(client, seeded):
    response = client.get("/chapters/II.4/")
    assert response.status_code == 200
    assert_in_order(visible_text(response.content.decode()), SEED_LINES_IN_ORDER)


def test_the_apparatus_links_to_book_0_entries_by_code(client, seeded):
    html = client.get("/chapters/II.4/").content.decode()
    assert 'href="/chapters/0.LA.01/"' in html
    assert 'href="/chapters/0.MC.07/"' in html


def test_mathematics_arrives_as_mathml_with_no_dollar_left(client, seeded):
    html = client.get("/chapters/II.4/").content.decode()
    assert "<math" in html and "<msub>" in html
    assert "$" not in visible_text(html)


def test_the_figure_is_inline_svg_labelled_with_its_alt_text(client, seeded):
    html = client.get("/chapters/II.4/").content.decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in html
    assert 'aria-label="A vector of width d split into four slices' in html


def test_a_released_chapter_shows_its_release_and_verified_solutions(client, released):
    html = client.get("/chapters/II.3/").content.decode()
    text = visible_text(html)
    assert re.search(r"Release 1, \d{1,2} \w+ \d{4}", text)
    assert "Verified by the engine on" in text and "max error" in text
    assert '<div class="solution">' in html  # the worked problems' solutions are on the page
    assert "Solution: shown on the practice page" in text  # the exercises' are asked for there
    assert "owes" not in text.split("Worked problems")[1].split("Exercises")[0]


def test_each_verified_answer_says_how_it_was_checked_in_digits_mode_too(client, books, erin):
    document = sketch("II.7")
    document["problems"][1]["tolerance"] = {"digits": 4}
    chapter_import(document=document)
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    text = visible_text(client.get("/chapters/II.7/").content.decode())
    assert "rtol ," not in text and "atol ," not in text
    assert "(checked to 4 significant figures, engine" in text
    assert (
        "(checked within rtol 1e-06, atol 1e-09 but never looser than 3 significant figures, "
        "engine" in text
    )
    release = chapter_publish(chapter=chapter, user=erin)
    for problem in release.snapshot["problems"]:  # as releases were stored before the words
        if problem.get("verification"):
            problem["verification"].pop("checked_as")
    Release.objects.filter(pk=release.pk).update(snapshot=release.snapshot)
    text = visible_text(client.get("/chapters/II.7/releases/1/").content.decode())
    assert "(checked to 4 significant figures, engine" in text and "rtol ," not in text


def proposition_head(html: str) -> str:
    return html.split('class="proposition-head"')[1].split("</div></div>")[0]


def test_a_propositions_title_is_typeset_never_shown_as_its_source(client, books, erin):
    """A title is Markdown: the page had shown `$\\sqrt{d}$` and `**bold**` as typed, in a
    release made before titles were rendered too."""
    document = sketch("II.7")
    title = r"Scores scale as $\sqrt{d}$ and **bold**"
    document["propositions"] = [{"title": title, "statement": "They do."}]
    chapter_import(document=document)
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    release = chapter_publish(chapter=chapter, user=erin)
    del release.snapshot["propositions"][0]["title_html"]  # as releases were stored before
    release.snapshot["format"] = 2
    Release.objects.filter(pk=release.pk).update(snapshot=release.snapshot)
    for page in ("/chapters/II.7/", "/chapters/II.7/releases/1/"):
        head = proposition_head(client.get(page).content.decode())
        assert "<strong>bold</strong>" in head and "<msqrt>" in head, head
        shown = visible_text(head)
        assert "Scores scale as" in shown and not any(s in shown for s in ("$", "**", "sqrt"))


def test_an_earlier_release_stays_readable(client, released):
    assert client.get("/chapters/II.3/releases/1/").status_code == 200
    assert client.get("/chapters/II.3/releases/2/").status_code == 404


def test_a_draft_is_404_to_anonymous(client, seeded):
    Chapter.objects.filter(code="II.4").update(state=Chapter.State.DRAFT)
    assert client.get("/chapters/II.4/").status_code == 404
    assert "II.4" not in client.get("/").content.decode()


def test_staff_preview_a_draft_with_its_unpublished_items(client, seeded):
    Chapter.objects.filter(code="II.4").update(state=Chapter.State.DRAFT)
    staff = User.objects.create_user("sam", password="sam-pass-9", is_staff=True)
    client.force_login(staff)
    html = client.get("/chapters/II.4/?preview=1").content.decode()
    assert "Staff preview" in html and "Output projection" in html


def test_a_preview_asked_for_by_a_reader_shows_only_what_is_published(client, seeded):
    html = client.get("/chapters/II.4/?preview=1").content.decode()
    assert "Staff preview" not in html and "Output projection" not in html


def test_an_unknown_chapter_is_404(client, seeded):
    assert client.get("/chapters/IX.9/").status_code == 404


@pytest.mark.parametrize("path", ["/", "/books/0/", "/books/II/"])
def test_tables_of_contents_list_chapters_with_maturity_and_strands(client, seeded, path):
    text = visible_text(client.get(path).content.decode())
    if path != "/books/II/":
        assert "0.LA.01" in text and "M0 Placeholder" in text
    if path != "/books/0/":
        assert "Chapter 4" in text and "owes 15 more" in text and "basics 2/11" in text


def test_an_unknown_book_is_404(client, seeded):
    assert client.get("/books/XL/").status_code == 404


def test_pages_carry_a_strict_content_security_policy(client, seeded):
    policy = client.get("/chapters/II.4/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
