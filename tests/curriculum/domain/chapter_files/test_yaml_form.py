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


@pytest.mark.parametrize(
    ("value", "refusal"),
    [
        ("!!int 1_216", "the tag !!int does not fit '1_216'"),
        ("!!float 1_216", "the tag !!float does not fit '1_216'"),
        ('!!int "١٢١٦"', "the tag !!int does not fit '١٢١٦'"),
        ('!!float " 1216 "', "the tag !!float does not fit ' 1216 '"),
        ("!!int 0b10011000000", "the tag !!int does not fit '0b10011000000'"),
        ("!!int 20:16", "the tag !!int does not fit '20:16'"),
        ("!!float 20:16", "the tag !!float does not fit '20:16'"),
        ("!!int 1.5", "the tag !!int does not fit '1.5'"),
        ("!!int [1]", "the tag !!int does not fit a list"),
    ],
)
def test_a_number_s_tag_on_what_yaml_1_2_does_not_write_as_one_is_refused_where_it_stands(
    value, refusal
):
    """A tag skipped the reading of plain scalars: YAML 1.1's 1_216 and Python's Arabic-Indic
    digits or spaces were read as 1216, and 20:16 or 0b... refused as too large, or in Python's
    words with no line."""
    integer = "an integer as 12, -3, 0o17 or 0x1F"
    number = "a number as 12, -3, 0x1F, 0.5, 1e-6, .inf or .nan"
    forms = integer if refusal.startswith("the tag !!int") else number
    with pytest.raises(ChapterFileError) as refused:
        load_yaml(f"code: II.7\nanswer: {value}\n")
    assert refused.value.errors == [f"line 2, column 9: {refusal}: YAML 1.2 writes {forms}"]


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ("!!int 1216", 1216),
        ("!!float 1216", 1216.0),
        ("!!float 1.5", 1.5),
        ('!!int "12"', 12),
        ("!!int 0x1F", 31),
        ("!!float 0o17", 15.0),
        ("!!float -.inf", float("-inf")),
        ("!!float 1e-6", 1e-6),
    ],
)
def test_a_number_s_tag_on_a_number_as_yaml_1_2_writes_it_reads_it(value, read):
    answer = load_yaml(f"answer: {value}\n")["answer"]
    assert answer == read and type(answer) is type(read)


def test_a_mapping_s_tag_on_a_scalar_is_refused_where_it_stands():
    with pytest.raises(ChapterFileError) as refused:
        load_yaml("code: II.7\ntitle: !!map x\n")
    assert refused.value.errors == [
        "line 2, column 8: not valid YAML: expected a mapping node, but found scalar"
    ]


@pytest.mark.parametrize(
    ("value", "refusal"),
    [
        ("!!bool yes", "the tag !!bool does not fit 'yes'"),
        ("!!bool y", "the tag !!bool does not fit 'y'"),
        ("!!bool 1", "the tag !!bool does not fit '1'"),
        ("!!null x", "the tag !!null does not fit 'x'"),
        ("!!null [1]", "the tag !!null does not fit a list"),
    ],
)
def test_a_tag_on_what_yaml_1_2_does_not_write_as_true_false_or_null_is_refused(value, refusal):
    """`!!bool yes` was YAML 1.1's true, `!!bool y` a KeyError (a 500) and `!!null x` null."""
    forms = (
        "true or false as true, True, TRUE, false, False or FALSE"
        if "!!bool" in refusal
        else "null as null, Null, NULL, ~ or nothing at all"
    )
    with pytest.raises(ChapterFileError) as refused:
        load_yaml(f"code: II.7\npublished: {value}\n")
    assert refused.value.errors == [f"line 2, column 12: {refusal}: YAML 1.2 writes {forms}"]


@pytest.mark.parametrize(
    ("written", "read"),
    [("yes", "yes"), ("No", "No"), ("on", "on"), ("OFF", "OFF"), ("y", "y")]
    + [("True", True), ("FALSE", False), ("~", None), ("", None), ("NULL", None)]
    + [("!!bool true", True), ("!!bool False", False), ("!!null ~", None), ("!!null", None)],
)
def test_true_false_and_null_are_read_as_yaml_1_2_writes_them(written, read):
    """YAML 1.1's yes, no, on and off are text in YAML 1.2, as 1:30 and 1_000 are."""
    assert load_yaml(f"a: {written}\n") == {"a": read}


def test_a_yaml_1_1_boolean_is_refused_where_true_or_false_belongs(books):
    text = dump_yaml(sketch()).replace("published: true", "published: yes", 1)
    with pytest.raises(ChapterFileError) as refused:
        file_import(text=text)
    assert len(refused.value.errors) == 1 and "'yes'" in refused.value.errors[0]


@pytest.mark.parametrize("value", ["! 12", '! "12"', "!<!> yes"])
def test_the_non_specific_tag_on_a_value_is_refused_where_it_stands(value):
    """YAML 1.2 makes `! 12` the text 12; PyYAML read it, quoted or not, as the number."""
    with pytest.raises(ChapterFileError) as refused:
        load_yaml(f"code: II.7\nlabel: {value}\n")
    assert refused.value.errors == [
        "line 2, column 8: the tag ! is not read on a value: YAML 1.2 makes it text, the parser "
        "reads it untagged; write text in quotes, without the tag"
    ]


def test_the_non_specific_tag_on_a_list_or_mapping_is_read_as_one():
    assert load_yaml("a: ! [1]\nb: ! {c: 2}\n") == {"a": [1], "b": {"c": 2}}
