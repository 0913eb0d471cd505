"""The YAML a chapter is exported as reads back as the same text, whatever line breaks it holds;
values are read as YAML 1.2's core schema reads them, and no other tag is."""

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.chapter_files.importing import file_import
from curriculum.domain.chapter_files.yaml_form import dump_yaml, load_yaml
from curriculum.domain.working_copy import chapter_source
from tests.conftest import sketch


@pytest.mark.parametrize(
    "text",
    ["T\x85T", "line1\x85line2", "a\u2028b", "a\u2029b", "a\rb", "x\r\ny\n", "two\nlines"],
)
def test_a_text_with_any_line_break_comes_back_as_it_went(text):
    assert load_yaml(dump_yaml({"title": text}))["title"] == text


def test_export_then_import_then_export_keeps_a_next_line_character(books):
    """YAML folds an unescaped NEL (U+0085) into a space: an exported chapter holding one
    came back changed."""
    chapter_import(document=sketch("II.7", title="Softmax\x85rows"))
    exported = dump_yaml(chapter_source(code="II.7"))
    chapter_import(document=load_yaml(exported))
    assert chapter_source(code="II.7")["title"] == "Softmax\x85rows"
    assert dump_yaml(chapter_source(code="II.7")) == exported


@pytest.mark.parametrize("written", ["2001-12-14", "2001-12-14 21:59:43.10 -5", "2001-02-30"])
def test_a_date_is_text_as_yaml_1_2_reads_it(written):
    assert load_yaml(f"code: {written}") == {"code": written}


def test_a_code_written_as_a_date_is_refused_by_the_code_s_own_rule(books):
    text = dump_yaml(sketch()).replace("code: II.7", "code: 2001-12-14")
    with pytest.raises(ChapterFileError) as refused:
        file_import(text=text)
    assert refused.value.errors == [
        "code: expected a code such as II.4 or 0.LA.01, got text ('2001-12-14')"
    ]


@pytest.mark.parametrize(
    ("value", "tag"),
    [
        ("!!binary aGk=", "!!binary"),
        ("!!set {x}", "!!set"),
        ("!!omap [{x: 1}]", "!!omap"),
        ("!!pairs [{x: 1}]", "!!pairs"),
        ("!!timestamp 2001-12-14", "!!timestamp"),
        ("!foo x", "!foo"),
        ("!<tag:example.com,2000:x> y", "!<tag:example.com,2000:x>"),
    ],
)
def test_a_tag_outside_yaml_1_2_s_core_schema_is_refused_by_name_where_it_stands(value, tag):
    with pytest.raises(ChapterFileError) as refused:
        load_yaml(f"code: II.7\ntitle: {value}\n")
    assert refused.value.errors == [
        f"line 2, column 8: the tag {tag} is not allowed: a chapter file holds text, numbers, "
        "true or false, null, lists and mappings"
    ]
