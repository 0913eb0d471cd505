"""Misconceptions: each operation's common mistakes, answered beside the right value.

``misconception_values`` is checked against ``evaluate``: the same request, the same
selectors, a value only where the mistake gives one of the right shape that differs.
"""

import math
import re
import warnings
from dataclasses import replace

import numpy as np
import pytest

from attention import (
    OPERATIONS,
    EngineInputError,
    EngineOverTime,
    Misconception,
    evaluate,
    evaluation_work,
    misconception_values,
    misconception_work,
)

from .misconception_inputs import MASK, REQUESTS, mistaken, r


def assert_sound(operation, inputs, ask):
    """Every value has the right one's shape, is finite and differs from it; names unique."""
    right = evaluate(operation, inputs, ask)
    found = misconception_values(operation, inputs, ask)
    names = [m.name for m, _ in found]
    assert len(names) == len(set(names))
    for misconception, value in found:
        assert misconception in OPERATIONS[operation].misconceptions
        if isinstance(right, dict):
            assert value.keys() == right.keys() and value != right
        else:
            assert value.shape == right.shape, misconception.name
            assert np.all(np.isfinite(value)), misconception.name
            assert not np.array_equal(value, right), misconception.name
    return names


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_every_operation_names_at_least_two_mistakes_in_plain_sentences(name):
    misconceptions = OPERATIONS[name].misconceptions
    assert len(misconceptions) >= 2
    names = [m.name for m in misconceptions]
    assert len(names) == len(set(names))
    for m in misconceptions:
        assert re.fullmatch(r"[a-z0-9_]+(-[a-z0-9_]+)*", m.name), m.name
        assert m.says.startswith("This is what you get ") and m.says.endswith("."), m.name
        assert not set(m.says) & set("$\\`"), m.says  # plain text, no TeX or Markdown code


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_the_worked_example_gives_sound_mistaken_values(name):
    example = OPERATIONS[name].example
    assert_sound(name, example.inputs, example.ask)


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_every_misconception_makes_a_difference_on_some_request(name):
    shown = set()
    for inputs in REQUESTS[name]:
        for output in OPERATIONS[name].outputs:
            try:
                evaluate(name, inputs, {"output": output})
            except EngineInputError:
                continue  # an output these inputs do not compute (a backward term)
            shown.update(assert_sound(name, inputs, {"output": output}))
    assert shown == {m.name for m in OPERATIONS[name].misconceptions}


def test_selectors_narrow_a_mistaken_value_as_they_narrow_the_right_one():
    inputs = {"q": r(2, 3, 4), "k": r(2, 3, 4), "v": r(2, 3, 2), "mask": MASK}
    whole = mistaken("scaled_dot_product_attention", inputs, "weights")
    one = mistaken("scaled_dot_product_attention", inputs, "weights", batch=1, row=2, col=0)
    assert set(one) <= set(whole) and one
    for name, value in one.items():
        assert value.shape == () and value == whole[name][1, 2, 0]


def _patched(monkeypatch, *misconceptions):
    op = OPERATIONS["softmax"]
    monkeypatch.setitem(OPERATIONS, "softmax", replace(op, misconceptions=misconceptions))


def _says(name, run):
    return Misconception(name, "This is what you get in a test.", run)


def test_a_misconception_that_fails_or_misses_is_left_out(monkeypatch):
    def fails(v):
        return {"out": v["scores"] @ np.ones((5, 5))}  # numpy's error on mismatched shapes

    _patched(
        monkeypatch,
        _says("fails", fails),
        _says("other-shape", lambda v: {"out": np.zeros(3)}),
        _says("not-finite", lambda v: {"out": np.full(2, np.nan)}),
        _says("right-anyway", lambda v: {"out": np.array([1 / 3, 2 / 3])}),
        _says("silent", lambda v: {}),
        _says("zeros", lambda v: {"out": np.zeros(2)}),
    )
    found = misconception_values("softmax", {"scores": [0.0, math.log(2)]}, {"output": "out"})
    assert [m.name for m, _ in found] == ["zeros"]


def test_running_out_of_time_is_never_taken_for_a_failed_mistake(monkeypatch):
    def over(v):
        raise EngineOverTime(1.0)

    _patched(monkeypatch, _says("slow", over))
    with pytest.raises(EngineOverTime):
        misconception_values("softmax", {"scores": [0.0, 1.0]}, {"output": "out"})


def test_a_bad_request_raises_as_evaluate_does():
    with pytest.raises(EngineInputError) as info:
        misconception_values("softmax", {"scores": [0.0, 1.0]}, {"output": "nope"})
    assert [p.path for p in info.value.problems] == ["ask.output"]


def test_misconceptions_leave_the_inputs_as_they_were():
    for name, requests in REQUESTS.items():
        for inputs in requests:
            arrays = {n: a.copy() for n, a in inputs.items() if isinstance(a, np.ndarray)}
            misconception_values(name, inputs, {"output": OPERATIONS[name].outputs[0]})
            for n, a in arrays.items():
                np.testing.assert_array_equal(inputs[n], a, err_msg=f"{name}: {n}")


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_misconception_work_bounds_an_evaluation_and_each_mistake(name):
    inputs = OPERATIONS[name].example.inputs
    once = evaluation_work(name, inputs)
    bound = misconception_work(name, inputs)
    assert bound == (1 + len(OPERATIONS[name].misconceptions)) * once
    assert bound >= once
    assert misconception_work(name, inputs, instance=3) == bound
    assert misconception_work("no_such_operation", inputs) is None


def test_misconceptions_of_scores_near_float_range_warn_of_nothing():
    """Their right value is the engine's, as `evaluate` makes it: a worker's log filled with
    numpy's overflow warning from a hostile test's scores of 1e308 and -1e308."""
    args = ("softmax", {"scores": [1e308, -1e308]}, {"output": "out"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        misconception_values(*args)
    assert evaluate(*args).tolist() == [1.0, 0.0]
