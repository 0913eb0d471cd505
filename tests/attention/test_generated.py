"""Generated inputs: deterministic per (seed, instance, name), checked with paths, kept small."""

import numpy as np
import pytest

from attention import EngineInputError, check, evaluate, expand_inputs, instances_values
from attention.generated import MAX_GENERATED_ELEMENTS, is_generated

X = {"generate": "normal", "shape": [3, 4], "scale": 1.0, "round": 2, "seed": 7}


def _mha(**changes):
    inputs = {
        name: {"generate": "normal", "shape": [4, 4], "seed": i, "scale": 0.5}
        for i, name in enumerate(("w_q", "w_k", "w_v", "w_o"))
    }
    inputs.update({"x": X, "heads": 2})
    inputs.update(changes)
    return inputs


def test_the_same_generator_gives_the_same_numbers_every_time():
    first = expand_inputs({"x": X})["x"]
    assert first == expand_inputs({"x": dict(X)})["x"]
    assert np.asarray(first).shape == (3, 4)
    assert all(round(v, 2) == v for row in first for v in row)


def test_instances_names_and_seeds_each_draw_differently():
    base = expand_inputs({"x": X, "y": X})
    assert base["x"] != base["y"]  # the input's name is part of the seed
    assert expand_inputs({"x": X}, instance=1)["x"] != base["x"]
    assert expand_inputs({"x": {**X, "seed": 8}})["x"] != base["x"]


def test_the_numbers_do_not_depend_on_the_other_inputs():
    alone = expand_inputs({"x": X})["x"]
    assert expand_inputs({"a": {**X, "seed": 1}, "x": X, "heads": 2})["x"] == alone


def test_uniform_stays_within_its_bounds_and_a_scalar_is_a_number():
    drawn = expand_inputs(
        {"u": {"generate": "uniform", "shape": [50], "low": 2, "high": 3, "seed": 0}}
    )["u"]
    assert all(2 <= v <= 3 for v in drawn)
    symmetric = expand_inputs(
        {"u": {"generate": "uniform", "shape": [50], "scale": 0.5, "round": 3, "seed": 0}}
    )["u"]
    assert all(-0.5 <= v <= 0.5 for v in symmetric)
    scalar = expand_inputs({"s": {"generate": "normal", "shape": [], "seed": 3}})["s"]
    assert isinstance(scalar, float)


def test_numbers_pass_through_unchanged():
    assert expand_inputs({"heads": 2, "x": [[1.0]]}) == {"heads": 2, "x": [[1.0]]}
    assert not is_generated({"heads": 2, "x": [[1.0]]})
    assert is_generated({"x": X})


def test_every_bad_key_is_reported_with_its_path():
    bad = {
        "generate": "uniform",
        "shape": [2, 0],
        "seed": -1,
        "low": 1,
        "round": 20,
        "colour": "red",
    }
    with pytest.raises(EngineInputError) as raised:
        expand_inputs({"x": bad})
    paths = {p.path for p in raised.value.problems}
    assert paths == {
        "inputs.x.shape",
        "inputs.x.seed",
        "inputs.x.round",
        "inputs.x.high",
        "inputs.x.colour",
    }


def test_an_unknown_generator_and_both_bounds_and_scale_are_refused():
    with pytest.raises(EngineInputError, match="unknown generator 'gauss'"):
        expand_inputs({"x": {"generate": "gauss", "shape": [1], "seed": 0}})
    with pytest.raises(EngineInputError, match="either scale"):
        expand_inputs(
            {"x": {"generate": "uniform", "shape": [1], "seed": 0, "low": 0, "high": 1, "scale": 1}}
        )


def test_a_generator_past_the_size_limit_is_refused_without_drawing():
    huge = {"generate": "normal", "shape": [MAX_GENERATED_ELEMENTS + 1], "seed": 0}
    with pytest.raises(EngineInputError, match="more than the limit"):
        expand_inputs({"x": huge})


def test_the_registry_computes_on_generated_inputs_at_each_instance():
    inputs = _mha()
    ask = {"output": "out"}
    assert check("multi_head_attention", inputs, ask) == []
    numbers = expand_inputs(inputs)
    assert np.array_equal(
        evaluate("multi_head_attention", inputs, ask),
        evaluate("multi_head_attention", numbers, ask),
    )
    assert not np.array_equal(
        evaluate("multi_head_attention", inputs, ask, instance=1),
        evaluate("multi_head_attention", inputs, ask),
    )


def test_the_registry_reports_generator_and_shape_problems_at_their_paths():
    found = {
        p.path: p.message
        for p in check(
            "multi_head_attention",
            _mha(heads={"generate": "normal", "shape": [], "seed": 0}, x={**X, "shape": [3, 5]}),
            {"output": "out"},
        )
    }
    assert found["inputs.heads"].startswith("cannot be generated")
    assert "inputs.x" in found or "inputs.w_q" in found  # width 5 against 4x4 weights


def test_instances_values_names_the_instance_that_cannot_be_computed():
    good = _mha()
    ask = {"output": "out"}
    values, message = instances_values("multi_head_attention", good, ask, range(1, 21))
    assert message == "" and sorted(values) == list(range(1, 21))
    assert np.array_equal(values[7], evaluate("multi_head_attention", good, {"output": "out"}, 7))
    scores = {"generate": "normal", "shape": [2, 3], "seed": 0}
    ask = {"output": "out", "row": 5}
    _, message = instances_values("softmax", {"scores": scores}, ask, [3, 4])
    assert message.startswith("instance 3: ask.row")


def test_a_problem_input_drawn_as_integers_is_refused_naming_the_rule():
    """`integers` draws a proposition's check (docs/content-format.md); a problem's inputs are
    drawn normal or uniform, and one drawn as integers had been stored silently."""
    spec = {"generate": "integers", "shape": [4], "seed": 1, "low": 0, "high": 3}
    [problem] = check("softmax", {"scores": spec}, {"output": "out"})
    assert problem.path == "inputs.scores.generate"
    assert problem.message.startswith("integers draws a proposition's check only")
