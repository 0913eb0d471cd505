"""Chapter files are read in one pass over libyaml's events; whatever that pass gives must be
what PyYAML's loader gives (the same values, of the same types, or the same refusal)."""

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from curriculum.domain.chapter_files import ChapterFileError, load_yaml, yaml_form

CONTENT = Path(__file__).resolve().parents[2] / "content"


def outcome(read, text: str) -> Any:
    try:
        return ("read", _exact(read(text)))
    except ChapterFileError as error:
        return ("refused", error.errors)


def _exact(value: Any) -> Any:
    """Types kept apart (1, 1.0 and True are equal in Python), NaN equal to itself."""
    if isinstance(value, dict):
        return ("map", [(_exact(k), _exact(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", [_exact(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


LOOKALIKES = [
    "",
    "~",
    "null",
    "Null",
    "yes",
    "No",
    "on",
    "OFF",
    "true",
    "y",
    "0",
    "-0",
    "012",
    "0o17",
    "0x1F",
    "0b101",
    "1_000",
    "1:20",
    "-1:20:30.5",
    "1e-6",
    "1.5e3",
    "-1.0E+2",
    ".inf",
    "-.Inf",
    ".NaN",
    "3.",
    ".5",
    "+7",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "<<",
    "=",
    "a: b",
    "- x",
    "#c",
    "'q'",
    '"d"',
    "x\ny",
    " lead",
    "trail ",
    "\t",
    "é",
    "$x_{1}$",
    "1.0",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(LOOKALIKES),
    st.text(max_size=12),
)
keys = st.one_of(
    st.sampled_from(LOOKALIKES),
    st.text(max_size=6),
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.floats(-2, 2),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(documents, st.sampled_from([None, True, False]), st.sampled_from([None, '"', "'", "|"]))
def test_any_dumped_document_reads_as_the_loader_reads_it(document, flow, style):
    text = yaml.dump(document, default_flow_style=flow, default_style=style, allow_unicode=True)
    assert outcome(load_yaml, text) == outcome(yaml_form.pyyaml_load, text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "---\n",
        "a: 1\n---\nb: 2\n",
        "a: &x [1, 2]\nb: *x\n",
        "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",
        "a: !!str 12\nb: !!float 1\nc: !custom x\n",
        "? [a, b]\n: c\n",
        "a: 1\na: 2\n",
        "1: x\n1.0: y\n",
        "true: x\n1: y\n",
        "when: 2001-12-14\nstamp: 2001-12-14t21:59:43.10-05:00\n",
        "bits: !!binary aGVsbG8=\nset: !!set {a, b}\nordered: !!omap [a: 1]\n",
        "= : x\n",
        "a: [1, 2\n",
        "a: b: c\n",
        "key: 'unterminated\n",
        "- a\nb: c\n",
        "\ta: 1\n",
        "[" * 45 + "]" * 45,
        "a:\n" + "".join(f"{'  ' * i}- \n" for i in range(1, 45)),
        "x: " + "[" * 39 + "1" + "]" * 39 + "\n",
        "n: 0o17\nm: 017\nh: 0x1f\ns: 1:20\nf: 1_000.5\ni: -.inf\nz: .nan\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: 1\n...\n",
        'plain: text with: colon\nquoted: "1"\nfolded: >\n  a\n  b\nliteral: |\n  x\n',
    ],
)
def test_files_beyond_the_one_pass_read_as_the_loader_reads_them(text):
    assert outcome(load_yaml, text) == outcome(yaml_form.pyyaml_load, text)


def test_a_file_over_the_numbers_limit_is_refused_whichever_way_it_is_read(settings):
    settings.LIMIT_CHAPTER_NUMBERS = 10
    plain, aliased = yaml.safe_dump({"a": list(range(11))}), "a: &x [1, 2]\nb: [*x, *x, *x]\n"
    aliased += "c: [*x, *x, *x]\n"  # no part over the limit: the file is
    for text in (plain, aliased):
        [error] = outcome(load_yaml, text)[1]
        assert error.endswith("; at most 10 (LIMIT_CHAPTER_NUMBERS)"), error
    assert outcome(load_yaml, plain)[1][0].startswith("a: holds 11 numbers")
    assert outcome(load_yaml, aliased)[1][0].startswith("file: holds 14 numbers")


def test_the_seed_files_are_read_in_the_one_pass():
    """The fast reading is the one that runs: no seed file falls back to the loader."""
    for path in sorted(CONTENT.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert _exact(yaml_form._read(text)) == _exact(yaml_form.pyyaml_load(text)), path
