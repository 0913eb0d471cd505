"""Search's words: the same on both databases, folded, without common words, plurals as their
singular, and a typo read as the course's nearest words."""

from hypothesis import given
from hypothesis import strategies as st

from curriculum.domain.search_words import (
    alike,
    edits,
    least_similarity,
    length_range,
    similarity,
    swapped,
    tsvector_literal,
    typo_edits,
    words,
)


def test_words_fold_case_scripts_and_plurals_and_leave_out_common_words():
    assert words("The Heads of QK⊤, x² and dₖ; queries") == ["head", "qk", "x2", "dk", "query"]
    assert words("the of and") == []


def test_similarity_is_pg_trgms():
    assert similarity("atention", "attention") == 8 / 11
    assert similarity("word", "word") == 1.0


def test_a_swap_of_two_neighbouring_letters_is_one_edit():
    assert edits("wieght", "weight") == 1  # similarity 0.27: too few trigrams left to guess by
    assert edits("atetntion", "attention") == 1
    assert edits("sofmax", "softmax") == 1 and edits("qeury", "query") == 1
    assert edits("kitten", "sitting") == 3
    assert edits("ca", "abc") == 3  # no letter edited twice (optimal string alignment)


def test_a_swapped_word_is_read_as_the_word_and_nothing_farther():
    assert alike("wieght", ["weight", "height", "zebra"]) == ["weight"]  # height: 2 edits
    assert alike("smoe", ["some", "smoke", "same"]) == ["smoke", "some"]  # same: 2 edits
    assert alike("atetntion", ["attention", "intention"]) == ["attention"]


def test_a_long_word_may_be_two_edits_off_a_short_one_only_one():
    assert (typo_edits("smoe"), typo_edits("weight"), typo_edits("atention")) == (1, 1, 2)
    assert alike("wiehgts", ["weights"]) == []  # 7 letters: two swaps are too many
    assert alike("atetnoitn", ["attention"]) == []  # 9 letters, three edits
    assert alike("atetnitno", ["attention"]) == []
    assert alike("atetniton", ["attention"]) == ["attention"]  # two swaps, 0.18 alike


def test_a_typo_is_read_as_the_nearest_words_and_nothing_far():
    assert alike("atention", ["attention", "retention", "zebra"]) == ["attention", "retention"]
    assert alike("atentions", ["attentions", "attention", "tension"]) == ["attentions", "attention"]
    assert alike("zzzz", ["attention"]) == []
    assert alike("platypus", ["attention", "softmax", "weight", "pattern", "type"]) == []


def test_the_nearest_word_comes_first_then_the_most_alike():
    assert alike("weight", ["height", "weighted", "weight"]) == ["weight", "height", "weighted"]
    assert alike("atention", ["retention", "attention"]) == ["attention", "retention"]
    assert alike("attentio", ["attentional", "attention"]) == ["attention", "attentional"]
    assert alike("smoe", ["smoke", "some"]) == ["smoke", "some"]  # 1 edit each: 0.25, 0.11 alike
    assert alike("haed", ["hard", "head", "hand", "heads"]) == ["hand", "hard", "head"]


def test_the_length_window_holds_every_word_alike_enough():
    course = ["attention", "atten", "attentional", "attentiveness", "at"]
    shortest, longest = length_range("atention")
    near = [w for w in course if shortest <= len(w) <= longest]
    assert alike("atention", near) == alike("atention", course)


def edited(word: str, steps: list[tuple[str, int, str]]) -> str:
    for kind, at, letter in steps:
        at %= len(word) + 1
        if kind == "swap" and at + 1 < len(word):
            word = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
        elif kind == "change":
            word = word[:at] + letter + word[at + 1 :]
        elif kind == "drop":
            word = word[:at] + word[at + 1 :]
        elif kind == "add":
            word = word[:at] + letter + word[at:]
    return word


LETTERS = st.sampled_from("abcde")  # few letters: repeated trigrams, the hard case
STEPS = st.tuples(st.sampled_from(["swap", "change", "drop", "add"]), st.integers(0, 40), LETTERS)


@given(word=st.text(LETTERS, min_size=4, max_size=16), steps=st.lists(STEPS, max_size=2))
def test_both_databases_fetch_every_word_a_typo_may_be_read_as(word, steps):
    """PostgreSQL fetches through the trigram index at `least_similarity`, and a word with
    letters swapped as it is (`swapped`); SQLite by length (`length_range`)."""
    course_word = edited(word, steps)
    if not alike(word, [course_word]):
        return
    swaps, fetched = swapped(word, typo_edits(word)), similarity(word, course_word)
    assert course_word in swaps or fetched >= least_similarity(word)
    shortest, longest = length_range(word)
    assert shortest <= len(course_word) <= longest


def test_the_tsvector_is_written_with_positions_and_quotes_kept():
    assert tsvector_literal(["a", "b", "a", "o'k"]) == "'a':1,3 'b':2 'o''k':4"
