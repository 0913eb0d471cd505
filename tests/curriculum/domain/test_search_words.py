"""Search's words: the same on both databases, folded, without common words, plurals as their
singular, and a typo read as the course's nearest words."""

from curriculum.domain.search_words import alike, length_range, similarity, tsvector_literal, words


def test_words_fold_case_scripts_and_plurals_and_leave_out_common_words():
    assert words("The Heads of QK⊤, x² and dₖ; queries") == ["head", "qk", "x2", "dk", "query"]
    assert words("the of and") == []


def test_similarity_is_pg_trgms():
    assert similarity("atention", "attention") == 8 / 11
    assert similarity("word", "word") == 1.0


def test_a_typo_is_read_as_the_most_alike_words_and_nothing_far():
    assert alike("atention", ["attention", "retention", "zebra"]) == ["attention"]
    assert alike("atentions", ["attentions", "attention", "tension"]) == ["attentions", "attention"]
    assert alike("zzzz", ["attention"]) == []


def test_the_length_window_holds_every_word_alike_enough():
    course = ["attention", "atten", "attentional", "attentiveness", "at"]
    shortest, longest = length_range("atention")
    near = [w for w in course if shortest <= len(w) <= longest]
    assert alike("atention", near) == alike("atention", course)


def test_the_tsvector_is_written_with_positions_and_quotes_kept():
    assert tsvector_literal(["a", "b", "a", "o'k"]) == "'a':1,3 'b':2 'o''k':4"
