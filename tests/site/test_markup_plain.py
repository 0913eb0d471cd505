"""Plain one-line texts skip the Markdown parser: they must render exactly as it would."""

from hypothesis import given, settings
from hypothesis import strategies as st

from curriculum.domain.markup import PLAIN, _render_fresh, render_many

ALPHABET = "abcXYZ019 ,.;?()'-:/*_#<>&$"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=30), min_size=1, max_size=5))
def test_a_plain_text_renders_as_the_parser_renders_it(texts):
    assert render_many(texts) == _render_fresh(texts)


def test_what_counts_as_plain():
    assert PLAIN.fullmatch("Heads are slices of one budget (d, d), not copies.")
    for marked in ("1. a list", "- a list", "# heading", "*em*", "a $x$", "a  ", "a\nb", "<b>"):
        assert not PLAIN.fullmatch(marked), marked
