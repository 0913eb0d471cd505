"""The YAML a chapter is exported as reads back as the same text, whatever line breaks it holds."""

import pytest

from curriculum.domain.chapter_files import chapter_import
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
