"""Mistakes are told from the right answer by the rule a reader's answer is judged by: a
misconception whose value a page would print as the right answer is never offered, the verifier
warns of it, and no mistake is named for an answer that rule calls right."""

import numpy as np
import pytest
from django.core.cache import cache

import attention
from curriculum.domain.mistakes import mistake_named, mistake_warnings, offered_mistakes

SCORES = [[1.0, 0.0]]
RIGHT = [[0.7310585786300049, 0.2689414213699951]]
PRINTED = [[0.731059, 0.268941]]  # 0.268941 is beyond rtol 1e-6 of 0.26894142, within 6 figures
FAR = [[0.5, 0.5]]
PROBLEM = {
    "operation": "softmax",
    "inputs": {"scores": SCORES},
    "ask": {"output": "out"},
    "tolerance": {"rtol": 1e-6, "atol": 1e-9},
    "feedback": [{"answer": PRINTED, "says": "An author's rounding."}],
}


@pytest.fixture
def misconceptions(monkeypatch):
    """Softmax's misconceptions replaced by two: one a page cannot tell from the right answer."""
    cache.clear()
    rounded = attention.Misconception("rounded", "Rounded to six figures.", lambda v: v)
    uniform = attention.Misconception("uniform", "Every weight equal.", lambda v: v)
    found = [(rounded, np.array(PRINTED)), (uniform, np.array(FAR))]
    monkeypatch.setattr(attention, "misconception_values", lambda *args: found)
    assert not attention.compare(np.array(RIGHT), PRINTED, rtol=1e-6, atol=1e-9).ok
    yield
    cache.clear()


def test_a_misconception_a_page_prints_as_the_answer_is_warned_of_and_not_offered(misconceptions):
    warnings = mistake_warnings(PROBLEM, {0: np.array(RIGHT)})
    assert len(warnings) == 1 and "'rounded'" in warnings[0] and "6 significant" in warnings[0]
    assert [name for name, _, _ in offered_mistakes(PROBLEM, 0, RIGHT)] == ["uniform"]


def test_no_mistake_is_named_for_an_answer_the_reader_s_rule_calls_right(misconceptions):
    assert mistake_named(problem=PROBLEM, instance=0, answer=PRINTED, right=RIGHT) is None
    named = mistake_named(problem=PROBLEM, instance=0, answer=[[0.5, 0.5000004]], right=RIGHT)
    assert named is not None and named.name == "uniform"
