"""Chapter files: the round trip, and bad files refused whole with every error and its path."""

import math
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from curriculum.domain.chapter_files import (
    ChapterFileError,
    chapter_export,
    chapter_import,
    file_import,
)
from curriculum.domain.gate import PublishForbidden, chapter_publish
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Chapter, Problem, StrandItem
from tests.conftest import CONTENT, problem, sketch, verify_now


def import_text(text: str) -> None:
    file_import(text=text)


@pytest.mark.parametrize("code", ["II.4", "II.3", "0.LA.01", "0.MC.07"])
def test_export_import_export_gives_the_same_text(seeded, code):
    first = chapter_export(code=code)
    import_text(first)
    assert chapter_export(code=code) == first


def test_export_says_what_the_file_says(seeded):
    source = yaml.safe_load((CONTENT / "II" / "II.4.yaml").read_text())
    exported = yaml.safe_load(chapter_export(code="II.4"))
    assert exported == source


def test_import_updates_the_working_copy_in_place(books):
    import_text(yaml.safe_dump(sketch(), sort_keys=False))
    import_text(yaml.safe_dump(sketch(title="Renamed"), sort_keys=False))
    assert Chapter.objects.get(code="II.7").title == "Renamed"
    assert Chapter.objects.count() == 3


def refused(document, *, seeded_first=True) -> list[str]:
    text = document if isinstance(document, str) else yaml.safe_dump(document, sort_keys=False)
    with pytest.raises(ChapterFileError) as refusal:
        import_text(text)
    return refusal.value.errors


def test_unknown_keys_are_errors(books):
    doc = sketch(colour="blue")
    doc["problems"][0]["hint"] = "x"
    assert refused(doc) == [
        "colour: unknown key (allowed: code, book, number, title, author, thesis, summary, "
        "maturity, spine, state, before_you_start, problem_statement, strands, figures, "
        "apparatus, notation, propositions, problems)",
        "problems[0].hint: unknown key (allowed: key, kind, variant, statement, operation, "
        "inputs, ask, tolerance, solution, hints, feedback)",
    ]


def test_wrong_types_are_errors_with_their_paths(books):
    doc = sketch(number="four", title=["x"])
    doc["strands"]["basics"]["target"] = "eleven"
    doc["strands"]["basics"]["items"][0]["published"] = "yes"
    errors = refused(doc)
    assert "number: expected a whole number, got text ('four')" in errors
    assert "title: expected text, got a list" in errors
    assert "strands.basics.target: expected a whole number, got text ('eleven')" in errors
    assert "strands.basics.items[0].published: expected true or false, got text ('yes')" in errors


def test_nested_keys_are_refused_in_the_same_words_with_their_paths(books):
    """One bad part hides no other part's errors, and a bad chapter key no part's."""
    doc = sketch(maturity="M9", title="t" * 201)
    doc["strands"]["concept"]["items"] = [{"title": "x", "colour": "red"}]
    doc["propositions"] = [{"number": 0, "title": "t", "statement": "s", "proof_published": 1}]
    doc["problems"][0]["tolerance"] = {"rtol": -1, "atol": 0}
    doc["problems"][1]["solution"]["published"] = None
    doc["problems"].append(problem("p3"))
    assert refused(doc) == [
        "title: is 201 characters long; at most 200 fit",
        "maturity: expected one of M0, M1, M2, M3, M4, got text ('M9')",
        "strands.concept.items[0].colour: unknown key (allowed: title, body, published, defines)",
        "propositions[0].number: must be at least 1, got 0",
        "propositions[0].proof_published: expected true or false, got a number (1)",
        "problems[0].tolerance.rtol: expected a finite number, at least 0, got a number (-1)",
        "problems[1].solution.published: expected true or false, got nothing",
        "problems[3].key: problem key p3 appears twice",
    ]


def test_an_apparatus_code_that_does_not_exist_is_an_error(books):
    assert refused(sketch(apparatus=["0.LA.01", "0.XX.99"])) == [
        "apparatus[1]: no Book 0 entry 0.XX.99 exists"
    ]


def test_a_duplicate_problem_key_is_an_error(books):
    doc = sketch()
    doc["problems"].append(problem("p2"))
    assert refused(doc) == ["problems[3].key: problem key p2 appears twice"]


def test_a_malformed_matrix_is_an_error_naming_the_input(books):
    doc = sketch()
    doc["problems"][1]["inputs"]["scores"] = [[1.0, 2.0], [3.0]]
    errors = refused(doc)
    assert len(errors) == 1 and errors[0].startswith("problems[1].inputs.scores: ")


def test_a_wrong_shape_names_what_was_expected(books):
    doc = sketch(
        problems=[
            {
                **problem("p1", "worked"),
                "operation": "multi_head_attention",
                "inputs": {
                    "x": [[1, 0, 1, 0]],
                    "w_q": [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]],
                    "w_k": [[1, 0, 0, 0]] * 4,
                    "w_v": [[1, 0, 0, 0]] * 4,
                    "w_o": [[1, 0, 0, 0]] * 4,
                    "heads": 2,
                },
            }
        ]
    )
    assert "problems[0].inputs.w_q: expected 4x4 matrix, got 4x3" in refused(doc)


def test_a_mathematics_target_off_the_ladder_is_an_error(books):
    doc = sketch()
    doc["strands"]["mathematics"] = {"target": 7}
    assert refused(doc) == [
        "strands.mathematics.target: at M1 the mathematics target is 3 (1 worked + 2 exercises),"
        " got 7"
    ]


def test_a_target_that_is_not_a_whole_number_gets_one_error_not_two(books):
    doc = sketch()
    doc["strands"]["mathematics"] = {"target": 3.0}
    assert refused(doc) == [
        "strands.mathematics.target: expected a whole number, got a number (3.0)"
    ]


def test_state_published_is_reached_only_by_publishing(books):
    assert refused(sketch(state="published")) == [
        "state: expected one of draft, in_progress, got text ('published') "
        "(published is reached only by publishing: import as in_progress, then run "
        "publish_chapter or press Publish in admin)"
    ]


HOSTILE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script>'
    '<rect onclick="x()" width="1" height="1"/></svg>'
)


def test_a_figure_with_a_script_is_kept_as_written_and_shown_without_it(books):
    doc = sketch(figures=[{"label": "1", "caption": "c", "alt": "a", "svg": HOSTILE_SVG}])
    import_text(yaml.safe_dump(doc, sort_keys=False))
    assert yaml.safe_load(chapter_export(code="II.7"))["figures"][0]["svg"] == HOSTILE_SVG
    shown = chapter_for_reader(code="II.7").snapshot["figures"][0]["svg_html"]
    assert "<rect" in shown and "script" not in shown and "onclick" not in shown


def test_a_figure_that_is_not_an_svg_is_refused(books):
    figures = [
        {"label": "1", "caption": "c", "alt": "a", "svg": "<svg><unclosed></svg>"},
        {"label": "2", "caption": "c", "alt": "a", "svg": '<html xmlns="x"/>'},
        {
            "label": "3",
            "caption": "c",
            "alt": "a",
            "svg": '<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg"/>',
        },
    ]
    errors = refused(sketch(figures=figures))
    assert errors[0].startswith("figures[0].svg: not well-formed XML")
    assert errors[1:] == [
        'figures[1].svg: the root element must be <svg xmlns="http://www.w3.org/2000/svg">',
        "figures[2].svg: an SVG may not declare a DOCTYPE or entities",
    ]


def test_yaml_that_does_not_parse_says_where(books):
    assert refused("code: II.7\ntitle: [unclosed\n")[0].startswith("line 3, column 1: not valid")


@pytest.mark.parametrize("value", ["9" * 4301, "-" + "9" * 400, "0x" + "f" * 5000])
def test_a_value_no_parser_can_build_is_refused_in_an_author_s_words(books, value):
    """An integer no float can hold is refused where it is written: a tolerance or a generator's
    scale of 400 digits failed deep in the checks, and a hexadecimal literal escapes Python's own
    limit on digits, failing every message that named it."""
    [error] = refused(f"code: II.7\nanswer: {value}\n")
    assert error.startswith(("file: not valid YAML: ", "line 2, column 9: not valid YAML: "))
    assert "sys." not in error and "9" * 100 not in error and "f" * 100 not in error


def test_numbers_read_as_yaml_1_2_writes_them(books):
    """YAML 1.1 read 010 as 8 and 1:30 as 90, changing an author's inputs without a word;
    those are now text (refused where a number belongs), and 1e-6 is the number it looks like."""
    from curriculum.domain.chapter_files.yaml_form import load_yaml

    read = load_yaml("a: [010, 1:30, 1_0, 0b11, 0x10, 0o17, 1e-6, -.5, .inf, " + str(2**1023) + "]")
    assert read["a"] == [10, "1:30", "1_0", "0b11", 16, 15, 1e-6, -0.5, math.inf, 2**1023]
    with pytest.raises(ChapterFileError, match="larger than about 1.8e308"):
        load_yaml(f"a: {2**1024}")


def test_a_json_number_no_float_can_hold_is_refused_in_an_author_s_words():
    from curriculum.domain.chapter_files.json_form import json_document

    for digits in (b"9" * 4301, b"1" + b"0" * 400):
        with pytest.raises(ChapterFileError) as refusal:
            json_document(b'{"answer": ' + digits + b"}")
        assert refusal.value.errors == [
            "body: not valid JSON: a number is larger than about 1.8e308, the largest the engine"
            " computes with"
        ]


def test_a_json_text_with_a_lone_surrogate_is_refused_and_an_emoji_is_not():
    from curriculum.domain.chapter_files.json_form import json_document

    assert json_document(b'{"title": "\\ud83d\\ude00"}') == {"title": "\U0001f600"}
    for body in (b'{"title": "a \\ud800 b"}', b'{"\\udc00": 1}'):
        with pytest.raises(ChapterFileError, match="lone surrogate"):
            json_document(body)


def test_a_bad_file_writes_nothing_even_when_its_chapter_exists(books):
    import_text(yaml.safe_dump(sketch(), sort_keys=False))
    before = (Problem.objects.count(), StrandItem.objects.count())
    doc = sketch(title="Changed")
    doc["problems"][0]["kind"] = "lecture"
    assert refused(doc) == ["problems[0].kind: expected worked or exercise, got text ('lecture')"]
    assert Chapter.objects.get(code="II.7").title == "A Sketch"
    assert (Problem.objects.count(), StrandItem.objects.count()) == before


def test_every_error_is_reported_not_just_the_first(books):
    doc = sketch(maturity="M9", spine="poetry", apparatus=["0.ZZ.01"])
    doc["problems"][0]["kind"] = "quiz"
    doc["problems"][1]["solution"]["answer"] = "half"
    assert len(refused(doc)) >= 5


def test_import_command_refuses_a_bad_file_and_imports_the_good_one(books, tmp_path, capsys):
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(yaml.safe_dump(sketch(), sort_keys=False))
    bad.write_text(yaml.safe_dump(sketch(code="II.8", number=8, colour="red"), sort_keys=False))
    with pytest.raises(CommandError, match="1 of 2 files refused"):
        call_command("import_chapter", str(good), str(bad))
    captured = capsys.readouterr()
    assert f"{good}: created II.7" in captured.out
    assert f"{bad}: refused, nothing written (1 error):\n  colour: unknown key" in captured.err
    assert not Chapter.objects.filter(code="II.8").exists()


def test_dry_run_writes_nothing(books, tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(sketch(), sort_keys=False))
    call_command("import_chapter", str(path), "--dry-run")
    assert "would import II.7" in capsys.readouterr().out
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_chapter_can_come_with_its_book_in_one_import(db, tmp_path):
    book = tmp_path / "book.yaml"
    book.write_text("numeral: II\ntitle: Attention\nslug: attention\n")
    chapter = tmp_path / "c.yaml"
    chapter.write_text(yaml.safe_dump(sketch(), sort_keys=False))
    call_command("import_chapter", str(chapter), str(book))
    assert Chapter.objects.get(code="II.7").book.title == "Attention"


def test_a_missing_file_is_a_clear_error(db, capsys):
    with pytest.raises(CommandError):
        call_command("import_chapter", str(Path("/nonexistent/x.yaml")))
    assert "/nonexistent/x.yaml: cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["$$a$$ and $$b$$", "$$a$$ text $$b$$ more"])
def test_a_text_of_several_display_formulas_on_one_line_is_stored(books, text):
    import_text(yaml.safe_dump(sketch(thesis=text), sort_keys=False))
    assert Chapter.objects.get(code="II.7").thesis == text


def test_yaml_exponent_floats_are_numbers(books):
    doc = yaml.safe_dump(sketch(), sort_keys=False).replace("rtol: 1.0e-06", "rtol: 1e-6")
    import_text(doc)
    assert Problem.objects.get(chapter__code="II.7", key="p1").rtol == 1e-6


def test_values_of_the_wrong_kind_anywhere_are_errors_not_crashes(books):
    doc = sketch(maturity={"level": 3}, spine=[1], state={}, apparatus=[{}], book={})
    doc["problems"][0]["key"] = {}
    doc["problems"][1]["key"] = ["p"]
    doc["problems"][2]["inputs"] = "scores"
    doc["strands"]["basics"]["items"] = [{"title": {}}]
    doc["figures"] = [{"label": {}, "caption": 1, "alt": [], "svg": {}}, "figure"]
    doc["propositions"] = [{"number": {}, "title": "t", "statement": "s"}]
    errors = refused(doc)
    assert "maturity: expected one of M0, M1, M2, M3, M4, got a mapping" in errors
    assert "problems[0].key: expected a short key such as p1, got a mapping" in errors
    assert "figures[1]: expected a mapping, got text ('figure')" in errors
    assert len(errors) >= 12


def test_reimporting_a_released_chapter_as_in_progress_keeps_it_published(books):
    import_text(yaml.safe_dump(sketch(), sort_keys=False))
    verify_now(Chapter.objects.get(code="II.7"))
    chapter_publish(chapter=Chapter.objects.get(code="II.7"))
    import_text(yaml.safe_dump(sketch(title="Edited"), sort_keys=False))
    chapter = Chapter.objects.get(code="II.7")
    assert (chapter.state, chapter.title) == ("published", "Edited")
    import_text(yaml.safe_dump(sketch(state="draft"), sort_keys=False))
    assert Chapter.objects.get(code="II.7").state == "draft"


def test_text_too_long_for_its_column_is_an_error_not_a_crash(books):
    doc = sketch(title="T" * 201)
    doc["problems"][0]["key"] = "p" * 51
    doc["figures"] = [
        {
            "label": "4" * 21,
            "caption": "c",
            "alt": "a",
            "svg": '<svg xmlns="http://www.w3.org/2000/svg"/>',
        }
    ]
    assert refused(doc) == [
        "title: is 201 characters long; at most 200 fit",
        "figures[0].label: is 21 characters long; at most 20 fit",
        "problems[0].key: is 51 characters long; at most 50 fit",
    ]


def test_an_author_cannot_withdraw_a_published_chapter_and_an_editor_can(books, alice, erin):
    import_text(yaml.safe_dump(sketch(), sort_keys=False))
    verify_now(Chapter.objects.get(code="II.7"))
    chapter_publish(chapter=Chapter.objects.get(code="II.7"))
    with pytest.raises(PublishForbidden, match="for Editors"):
        chapter_import(document=sketch(state="draft"), user=alice)
    assert Chapter.objects.get(code="II.7").state == "published"
    chapter_import(document=sketch(state="draft"), user=erin)
    assert Chapter.objects.get(code="II.7").state == "draft"


def test_problem_keys_may_use_capitals_as_admin_allows(books):
    doc = sketch()
    doc["problems"][0]["key"] = "P1"
    import_text(yaml.safe_dump(doc, sort_keys=False))
    assert Problem.objects.filter(key="P1").exists()


def test_a_file_is_typeset_in_one_katex_run_its_writes_included(books):
    """Many formulas, none of them typeset before, and a thesis with one: the editing
    service's full_clean checks the thesis again after the file's checks, from the same run."""
    from unittest import mock

    from django.core.cache import caches

    from curriculum.domain import markup

    caches["markup"].clear()
    items = [
        {"title": f"Item {i}", "body": f"What $y_{{{i}}}$ means (and ${i} z$)."} for i in range(200)
    ]  # 400 formulas, within LIMIT_CHAPTER_PARTS
    document = sketch(thesis="A claim about $\\mathbb{R}^n$.")
    document["strands"]["concept"]["items"] = items
    with mock.patch.object(markup.katex, "_katex", wraps=markup.katex._katex) as katex:
        file_import(text=yaml.safe_dump(document, sort_keys=False))
    assert katex.call_count == 1
    assert StrandItem.objects.filter(chapter__code="II.7").count() == 201


def test_a_file_showing_media_imports_exports_and_imports_again_unchanged(books, heads):
    body = "Two heads[^1]:\n\n![two heads side by side](media:heads.png)\n\n[^1]: Of 32 each."
    import_text(yaml.safe_dump(sketch(before_you_start=body), sort_keys=False))
    first = chapter_export(code="II.7")
    assert yaml.safe_load(first)["before_you_start"] == body
    import_text(first)
    assert chapter_export(code="II.7") == first


def test_constructs_the_page_would_not_show_are_refused_with_their_paths(books, heads):
    document = sketch(
        before_you_start="See ![a cat](https://example.org/a.png).",
        problem_statement="Bold <b>this</b>, by \\eqref{score}, ![x](media:tails.png).",
    )
    document["strands"]["basics"]["items"][0]["body"] = "![](media:heads.png)"
    assert refused(document) == [
        "before_you_start: image `https://example.org/a.png` is not in the media library: "
        "pages show images only from this site; upload it in admin (Media) and write "
        "![what it shows](media:name)",
        "problem_statement: raw HTML `<b>` is not shown on the page: write Markdown, or put it "
        "in `code` to show it as written",
        "problem_statement: raw HTML `</b>` is not shown on the page: write Markdown, or put it "
        "in `code` to show it as written",
        "problem_statement: `\\eqref{score}` is not supported: write @eq:score (the equation "
        "labelled `$$ ... $$ (label)`)",
        "problem_statement: image media:tails.png names nothing in the media library: upload "
        "it in admin (Media) first",
        "strands.basics.items[0].body: image media:heads.png needs alt text: "
        "![what it shows](media:heads.png)",
    ]
