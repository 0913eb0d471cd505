"""A document's measured size is never less than what its export (YAML) or its JSON takes, and
close to it for what authors write: the bound that lets every stored chapter import again."""

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curriculum.domain.chapter_files import ChapterFileError, dump_yaml, load_yaml
from curriculum.domain.chapter_files.extent import document_extent

CONTENT = Path(__file__).resolve().parents[4] / "content"

# what YAML's emitter treats specially: indicators, quotes, escapes, breaks of every kind
HARD = list("ab '\"\\\n\t\r-:#{}[],&*!|>%@`?") + [
    "\x01",
    "\x7f",
    "\x85",
    "\xa0",
    "\u2028",
    "\ufeff",
    "\uffff",
    "\U0001f600",
    "é",
]
texts = st.one_of(
    st.text(st.sampled_from(HARD), max_size=300),
    st.text(max_size=40),
    st.sampled_from(["", "yes", "null", "1e3", "---", "...", "- x", "0", "a" * 130]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
keys = st.one_of(
    st.text(st.sampled_from(HARD), max_size=8),
    st.sampled_from(["code", "x"]),
    st.text(st.sampled_from(HARD), min_size=120, max_size=140),
)
documents = st.dictionaries(
    keys,
    st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=6), st.dictionaries(keys, inner, max_size=5)
        ),
        max_leaves=40,
    ),
    max_size=6,
)


def written(document) -> tuple[int, int]:
    as_json = json.dumps(document, ensure_ascii=False)
    return len(dump_yaml(document).encode()), len(as_json.encode("utf-8", "surrogatepass"))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(documents)
def test_the_measured_size_is_never_less_than_the_yaml_or_json_written(document):
    size = document_extent(document).size
    as_yaml, as_json = written(document)
    assert as_yaml <= size and as_json <= size


def test_the_measure_is_close_for_the_seed_course():
    for path in sorted(CONTENT.rglob("*.yaml")):
        document = load_yaml(path.read_text(encoding="utf-8"))
        assert document_extent(document).size < 1.15 * max(written(document)), path


def test_a_value_repeated_by_aliases_is_measured_wherever_it_stands():
    row = [0.5] * 10
    document = {"a": row, "b": [row] * 3, "c": {"d": [row, row]}}
    extent = document_extent(document)
    assert extent.numbers == 60
    assert max(written(document)) <= extent.size


def test_a_file_over_the_numbers_limit_is_refused_where_its_numbers_stand(settings):
    settings.LIMIT_CHAPTER_NUMBERS = 10
    plain, aliased = yaml.safe_dump({"a": list(range(11))}), "a: &x [1, 2]\nb: [*x, *x, *x]\n"
    aliased += "c: [*x, *x, *x]\n"  # no part over the limit: the file is
    for text, start in ((plain, "a: holds 11 numbers"), (aliased, "file: holds 14 numbers")):
        with pytest.raises(ChapterFileError) as refusal:
            load_yaml(text)
        [error] = refusal.value.errors
        assert error.startswith(start) and error.endswith("; at most 10 (LIMIT_CHAPTER_NUMBERS)")


def test_blank_lines_of_a_block_text_are_measured_as_written_unindented():
    document = {"items": [{"body": "a\n" + "\n" * 10_000 + "b\n"}]}
    as_yaml, as_json = written(document)
    assert as_yaml < 10_100 < as_json  # YAML's `|` block indents no blank line; JSON writes \n
    assert document_extent(document).size < 1.15 * as_json
