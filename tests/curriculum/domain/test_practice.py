"""What a reader types, read as numbers: a whole number stays whole, so a count past 2**53 is
judged exactly, as an author's is."""

import attention
from curriculum.domain.answers import Layout
from curriculum.domain.practice import answer_parse


def test_a_typed_whole_number_stays_whole_and_a_count_past_2_to_the_53_is_judged_exactly():
    flops = attention.evaluate(
        "attention_cost", {"seq_len": 300000007, "width": 16, "heads": 4}, {"output": "flops"}
    )
    right, layout = answer_parse("7920000981600018592")
    off, _ = answer_parse("7920000981600018092")
    assert (right, layout) == (7920000981600018592, Layout.LINE) and type(right) is int
    assert attention.compare(flops, right, digits=3).ok
    assert not attention.compare(flops, off, digits=3).ok
    assert answer_parse("1 2.5\n-3 4e2") == ([[1, 2.5], [-3, 400.0]], Layout.WRITTEN)
    assert answer_parse("0.2689\n0.7311") == ([0.2689, 0.7311], Layout.COLUMN)
    assert [type(v) for v in answer_parse("1, 2.0")[0]] == [int, float]


def test_a_line_break_counts_once_as_the_text_box_counts_it(settings):
    """A browser sends a textarea's line break as CRLF; LIMIT_ANSWER_CHARS counts it once."""
    import pytest

    from curriculum.domain.practice import AnswerInvalid

    rows = "1 2\r\n" * (settings.LIMIT_ANSWER_CHARS // 4)  # the limit, typed; more, sent
    assert len(answer_parse(rows)[0]) == settings.LIMIT_ANSWER_CHARS // 4
    with pytest.raises(AnswerInvalid, match="LIMIT_ANSWER_CHARS"):
        answer_parse("1\r\n" * (settings.LIMIT_ANSWER_CHARS // 2 + 1))
