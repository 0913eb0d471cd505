"""What a chapter makes readers' pages typeset is bounded where it is written: placeholders
({{ inputs.x }}) count the entries they expand to, a chapter counts its formulas before KaTeX
runs, and a practice page prints no more numbers than a text may typeset."""

import pytest
from django.test import Client

import attention
from curriculum.domain.chapter_files import ChapterFileError, chapter_import, load_yaml
from curriculum.models import Chapter
from tests.conftest import sketch, verify_now


def placed(count: int, shape=(20, 20)) -> dict:
    """Problem p1 shows its generated 20x20 input `count` times in its statement."""
    document = sketch("II.7")
    problem = document["problems"][0]
    problem["inputs"] = {"scores": {"generate": "normal", "shape": list(shape), "seed": 1}}
    problem["statement"] = "\n\n".join(["$${{ inputs.scores }}$$"] * count)
    return document


def test_a_text_whose_placeholders_typeset_too_much_is_refused_with_its_limit(books):
    chapter_import(document=placed(3), dry_run=True)  # 1,200 entries: the most one text shows
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=placed(4))
    [error] = refused.value.errors
    assert error.startswith("problems[0].statement: its placeholders typeset 1,600 entries")
    assert "(LIMIT_TEXT_TYPESET_ENTRIES)" in error
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_chapter_whose_placeholders_typeset_too_much_is_refused_once(books, settings):
    settings.LIMIT_CHAPTER_TYPESET_ENTRIES = 2000
    document = placed(3)
    for other in document["problems"][1:]:
        other["inputs"] = document["problems"][0]["inputs"]
        other["statement"] = document["problems"][0]["statement"]
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    [error] = refused.value.errors
    assert error.startswith("problems[1].statement: the chapter's placeholders would typeset")
    assert "(LIMIT_CHAPTER_TYPESET_ENTRIES)" in error


def test_a_chapter_stored_before_the_limits_is_shown_within_them(books, settings):
    chapter_import(document=placed(3))
    settings.LIMIT_TEXT_TYPESET_ENTRIES = 400  # lowered since: one of the three is shown
    Chapter.objects.get(code="II.7").save()  # a new version: the page is made again
    page = Client().get("/chapters/II.7/").content.decode()
    assert page.count("{{ inputs.scores }}") == 2  # left as written, not typeset


def test_a_chapter_of_too_many_formulas_is_refused_before_katex_runs(books, settings):
    settings.LIMIT_CHAPTER_FORMULAS = 100
    document = sketch("II.7")
    document["summary"] = " ".join(f"$a_{{{i}}}$" for i in range(101))
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    [error] = refused.value.errors
    assert error.startswith("top level: the chapter holds 10")  # the summary's and the sketch's
    assert error.endswith("formulas; at most 100 (LIMIT_CHAPTER_FORMULAS): split the chapter")


def test_a_practice_page_prints_no_more_numbers_than_a_text_may_typeset(books, settings):
    document = sketch("II.7")
    problem = document["problems"][1]
    problem["inputs"] = {"scores": {"generate": "normal", "shape": [40, 40], "seed": 3}}
    problem["ask"] = {"output": "out", "row": 0, "col": 0}
    problem["tolerance"] = {"digits": 3}
    problem["solution"]["answer"] = float(
        attention.evaluate("softmax", problem["inputs"], problem["ask"])
    )
    chapter_import(document=document)
    verify_now(Chapter.objects.get(code="II.7"))
    page = Client().get("/chapters/II.7/problems/p2/?instance=2")
    assert page.status_code == 200, page.content[:300]
    text = page.content.decode()
    assert "1600 numbers, more than a page prints (1200, LIMIT_TEXT_TYPESET_ENTRIES)" in text
    assert "/api/v1/chapters/II.7/problems/p2/instances/2" in text
    assert len(page.content) < 60_000


def test_yaml_nested_past_libyamls_own_bound_names_ours():
    with pytest.raises(ChapterFileError) as refused:
        load_yaml("code: " + "[" * 1000 + "]" * 1000 + "\n")
    assert "(LIMIT_YAML_DEPTH)" in refused.value.errors[0]


def test_a_throttled_client_is_told_which_rate(settings, db):
    settings.API_ANON_RATE = "1/min"
    client = Client(REMOTE_ADDR="2001:db8::429")
    assert client.get("/api/v1/ping").status_code == 200
    refused = client.get("/api/v1/ping")
    assert refused.status_code == 429
    told = "at most 1 per 60 s from one client address (API_ANON_RATE)"
    assert refused.json()["errors"] == [{"code": "rate_limited", "detail": told}]
    schema = client.get("/api/v1/openapi.json")
    assert schema.status_code == 429 and "(API_ANON_RATE)" in schema.json()["errors"][0]["detail"]
    assert schema["Content-Type"] == "application/problem+json" and schema["Retry-After"]


def test_named_values_count_each_number_and_a_formula_they_overfill_is_refused(books):
    document = sketch("II.7")
    problem = document["problems"][1]
    problem |= {
        "kind": "worked",  # solved in the text: its statement may show its outputs
        "operation": "attention_cost",
        "inputs": {"seq_len": 4, "width": 8, "heads": 2},
        "ask": {"output": "flops"},
        "tolerance": {"digits": 6},
    }
    problem["solution"]["answer"] = int(
        attention.evaluate("attention_cost", problem["inputs"], problem["ask"])
    )
    terms = len(attention.evaluate("attention_cost", problem["inputs"], {"output": "terms"}))
    per_text = 1200 // terms + 1  # one more than a text may typeset, counted by number
    problem["statement"] = "$$" + " ".join(["{{ outputs.terms }}"] * per_text) + "$$"
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert f"typeset {per_text * terms:,} entries" in refused.value.errors[0]
    problem["statement"] = "$$" + " ".join(["{{ outputs.terms }}"] * 120) + "$$"  # under 1200
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert "(LIMIT_FORMULA_CHARS)" in refused.value.errors[0]


def test_formulas_that_render_past_the_page_are_refused_once_katex_has_made_that_much(
    books, settings
):
    settings.LIMIT_CHAPTER_HTML_BYTES = 50_000
    document = sketch("II.7")
    heavy = r"\begin{pmatrix}1&2&3&4\\5&6&7&8\end{pmatrix}"
    document["summary"] = " ".join(f"${heavy}_{{{i}}}$" for i in range(400))
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert refused.value.errors == [
        "top level: the chapter has formulas that render to more than 50,000 bytes of HTML "
        "(LIMIT_CHAPTER_HTML_BYTES)"
    ]
    document["summary"] = " ".join(f"${heavy}_{{{i}}}$" for i in range(3))
    chapter_import(document=document)  # its first formulas, typeset before the cut, are right
    assert "math-error" not in Client().get("/chapters/II.7/").content.decode()


def test_a_practice_page_past_its_rate_says_when_to_retry(books, settings):
    from tests.curriculum.site.test_practice import generated_chapter

    settings.PRACTICE_CHECK_RATE = "1/min"
    generated_chapter()
    client = Client(REMOTE_ADDR="2001:db8::77")
    page = "/chapters/II.7/problems/p3/"
    checked = {"instance": 1, "answer": "1 2 3\n4 5 6", "step": "check"}
    assert client.post(page, checked).status_code == 200
    refused = client.post(page, checked)
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert "(PRACTICE_CHECK_RATE)" in refused.content.decode()


def test_one_heavy_formula_repeated_past_the_page_is_refused_before_the_page_is_built(
    books, settings
):
    settings.LIMIT_CHAPTER_HTML_BYTES = 50_000
    document = sketch("II.7")
    heavy = r"\begin{pmatrix}1&2&3&4\\5&6&7&8\end{pmatrix}"
    document["summary"] = " ".join([f"${heavy}$"] * 200)  # one formula, typeset once
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert refused.value.errors[0].endswith("bytes of HTML (LIMIT_CHAPTER_HTML_BYTES)")
