"""Registry: check reports every problem with its path; evaluate computes and narrows by ask."""

import math

import numpy as np
import pytest

from attention import (
    MAX_ELEMENTS,
    MAX_SEQ_LEN,
    OPERATIONS,
    EngineInputError,
    attention_cost,
    check,
    evaluate,
    multi_head_attention,
)

EYE4 = np.eye(4).tolist()


def _mha_inputs(**changes):
    inputs = {"x": [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]], "heads": 2}
    inputs.update({name: EYE4 for name in ("w_q", "w_k", "w_v", "w_o")})
    inputs.update(changes)
    return inputs


def _problems(operation, inputs, ask):
    return {p.path: p.message for p in check(operation, inputs, ask)}


def test_every_operation_declares_its_inputs_and_outputs():
    assert set(OPERATIONS) == {
        "softmax",
        "scaled_dot_product_attention",
        "multi_head_attention",
        "attention_head",
        "attention_cost",
        "layer_norm",
        "rms_norm",
        "feed_forward",
        "sinusoidal_positions",
        "rope",
        "grouped_query_attention",
        "attention_decode",
        "softmax_backward",
        "scaled_dot_product_attention_backward",
        "multi_head_attention_backward",
        "cross_entropy",
        "transformer_block",
    }
    mha = OPERATIONS["multi_head_attention"]
    assert [p.name for p in mha.parameters] == [
        "x",
        "w_q",
        "w_k",
        "w_v",
        "w_o",
        "heads",
        "mask",
        "causal",
    ]
    assert mha.outputs == ("out", "weights")
    assert OPERATIONS["attention_head"].outputs == ("out", "weights", "q", "k", "v")
    assert {"flops", "params", "terms", "softmax", "scaling"} <= set(
        OPERATIONS["attention_cost"].outputs
    )


def test_good_request_has_no_problems_and_evaluates_like_the_function():
    inputs = _mha_inputs(causal=True)
    assert check("multi_head_attention", inputs, {"output": "weights"}) == []
    value = evaluate("multi_head_attention", inputs, {"output": "weights"})
    expected = multi_head_attention(np.array(inputs["x"]), *[np.eye(4)] * 4, 2, causal=True)[1]
    np.testing.assert_array_equal(value, expected)


def test_selectors_narrow_in_order_batch_head_row_col():
    x = np.random.default_rng(0).normal(size=(2, 3, 4))
    inputs = _mha_inputs(x=x.tolist())
    full = evaluate("multi_head_attention", inputs, {"output": "weights"})
    assert full.shape == (2, 2, 3, 3)
    one = evaluate(
        "multi_head_attention",
        inputs,
        {"output": "weights", "batch": 1, "head": 0, "row": 2, "col": 1},
    )
    assert one.shape == () and one == full[1, 0, 2, 1]
    row = evaluate("multi_head_attention", inputs, {"output": "out", "batch": 0, "row": 1})
    np.testing.assert_array_equal(
        row, evaluate("multi_head_attention", inputs, {"output": "out"})[0, 1]
    )


def test_cost_outputs_scalars_terms_and_single_terms():
    inputs = {"seq_len": 4, "width": 8, "heads": 2}
    flops = evaluate("attention_cost", inputs, {"output": "flops"})
    assert isinstance(flops, np.ndarray) and flops.shape == () and int(flops) == 2736
    assert evaluate("attention_cost", inputs, {"output": "terms"}) == dict(
        attention_cost(4, 8, 2).terms
    )
    assert int(evaluate("attention_cost", {**inputs, "batch": 2}, {"output": "softmax"})) == 288
    assert int(evaluate("attention_cost", {**inputs, "bias": True}, {"output": "params"})) == 288


def test_attention_head_evaluates_the_heads_slices():
    inputs = _mha_inputs(head=1)
    del inputs["w_o"]
    q = evaluate("attention_head", inputs, {"output": "q"})
    np.testing.assert_array_equal(q, np.array(inputs["x"])[:, 2:4])
    weights = evaluate("attention_head", inputs, {"output": "weights", "row": 0})
    assert weights.shape == (3,) and math.isclose(float(weights.sum()), 1.0)


def test_softmax_and_sdpa_evaluate():
    out = evaluate("softmax", {"scores": [1000.0, 1000.0]}, {"output": "out", "col": 1})
    assert float(out) == 0.5
    sdpa = evaluate(
        "scaled_dot_product_attention",
        {"q": [[1.0, 0.0]], "k": [[1.0, 0.0], [0.0, 1.0]], "v": [[2.0], [4.0]], "causal": False},
        {"output": "out"},
    )
    a = math.exp(1 / math.sqrt(2))
    np.testing.assert_allclose(sdpa, [[(2 * a + 4) / (a + 1)]])


@pytest.mark.parametrize(
    ("changes", "path", "text"),
    [
        ({"w_q": np.ones((4, 3)).tolist()}, "inputs.w_q", "expected 4x4 matrix, got 4x3"),
        (
            {"w_k": [[1.0, "a", 0.0, 0.0]] * 4},
            "inputs.w_k",
            "must contain only numbers, found str 'a'",
        ),
        ({"w_v": "eye"}, "inputs.w_v", "must contain only numbers"),
        ({"x": [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0]]}, "inputs.x", "ragged"),
        ({"x": [[1.0, float("nan"), 0.0, 0.0]]}, "inputs.x", "must be finite"),
        ({"x": [[1.0, None, 0.0, 0.0]]}, "inputs.x", "found null"),
        ({"x": [[True, 0.0, 0.0, 0.0]]}, "inputs.x", "found bool"),
        ({"heads": 3}, "inputs.heads", "width 4 is not divisible by 3 heads"),
        ({"heads": "2"}, "inputs.heads", "must be an integer"),
        ({"heads": 2.0}, "inputs.heads", "must be an integer"),
        ({"causal": 1}, "inputs.causal", "must be a boolean"),
        ({"mask": [[1, 0, 0], [1, 1, 0], [1, 1, 1]]}, "inputs.mask", "must contain only booleans"),
        ({"mask": [[True] * 3] * 2}, "inputs.mask", "expected 3x3 matrix"),
        ({"mask": [[True, False, False], [False] * 3, [True] * 3]}, "inputs.mask", "query row 1"),
        ({"extra": 1}, "inputs.extra", "unknown input"),
        ({"x": np.zeros((MAX_SEQ_LEN + 1, 4))}, "inputs.x", f"exceeds the limit of {MAX_SEQ_LEN}"),
    ],
)
def test_each_kind_of_bad_input_is_reported_at_its_path(changes, path, text):
    problems = _problems("multi_head_attention", _mha_inputs(**changes), {"output": "out"})
    assert path in problems, problems
    assert text in problems[path]
    with pytest.raises(EngineInputError) as info:
        evaluate("multi_head_attention", _mha_inputs(**changes), {"output": "out"})
    assert path in {p.path for p in info.value.problems}


def test_missing_inputs_are_reported():
    inputs = _mha_inputs()
    del inputs["w_o"]
    assert "required" in _problems("multi_head_attention", inputs, {"output": "out"})["inputs.w_o"]


def test_work_beyond_the_element_cap_is_refused_without_computing():
    inputs = {
        "x": np.zeros((4096, 8)),
        "heads": 8,
        **{n: np.eye(8) for n in ("w_q", "w_k", "w_v", "w_o")},
    }
    problems = _problems("multi_head_attention", inputs, {"output": "out"})
    assert str(MAX_ELEMENTS) in problems["inputs"]


def test_all_problems_are_collected_at_once():
    inputs = _mha_inputs(w_q=np.ones((4, 3)).tolist(), heads=3, causal="yes", bogus=1)
    del inputs["w_v"]
    problems = _problems("multi_head_attention", inputs, {"output": "nope", "row": "0"})
    assert set(problems) == {
        "inputs.w_q",
        "inputs.heads",
        "inputs.causal",
        "inputs.bogus",
        "inputs.w_v",
        "ask.output",
        "ask.row",
    }


def test_unknown_operation_is_reported_at_operation():
    assert "unknown operation" in _problems("transformer", {}, {"output": "out"})["operation"]


@pytest.mark.parametrize(
    ("ask", "path", "text"),
    [
        ({}, "ask.output", "required"),
        ({"output": "attention"}, "ask.output", "unknown output"),
        ({"output": "out", "head": 0}, "ask.head", "has no head axis"),
        ({"output": "weights", "head": 2}, "ask.head", "out of range"),
        ({"output": "weights", "row": -1}, "ask.row", "out of range"),
        ({"output": "weights", "col": True}, "ask.col", "must be an integer"),
        ({"output": "weights", "batch": 0}, "ask.batch", "has no batch axis"),
        ({"output": "weights", "token": 0}, "ask.token", "unknown key"),
    ],
)
def test_bad_ask_is_reported(ask, path, text):
    problems = _problems("multi_head_attention", _mha_inputs(), ask)
    assert path in problems, problems
    assert text in problems[path]


def test_ask_must_be_a_mapping():
    assert "ask" in _problems("softmax", {"scores": [1.0]}, "out")


def test_head_index_out_of_range_is_reported_for_attention_head():
    inputs = _mha_inputs(head=2)
    del inputs["w_o"]
    assert "out of range" in _problems("attention_head", inputs, {"output": "out"})["inputs.head"]


def test_cost_arguments_and_ask_are_checked_together():
    inputs = {"seq_len": 0, "width": 10, "heads": 4, "bias": "no"}
    problems = _problems("attention_cost", inputs, {"output": "terms", "row": 0})
    assert set(problems) == {"inputs.seq_len", "inputs.heads", "inputs.bias", "ask.row"}
    assert "mapping" in problems["ask.row"]


def test_cost_beyond_64_bit_counts_is_refused():
    inputs = {"seq_len": 10**9, "width": 10**9, "heads": 1, "batch": 10**9}
    assert "too large" in _problems("attention_cost", inputs, {"output": "flops"})["inputs"]


def test_inputs_given_to_evaluate_are_not_modified():
    x = np.random.default_rng(1).normal(size=(3, 4))
    before = x.copy()
    evaluate("multi_head_attention", _mha_inputs(x=x), {"output": "out"})
    assert np.array_equal(x, before)


def test_an_operation_declares_counts_exactly_when_its_outputs_are_integers():
    """Pages say "checked exactly" from the declaration, before the engine runs: it must agree
    with what the engine computes (integers are compared exactly, whatever the tolerance)."""
    for name, op in OPERATIONS.items():
        assert op.example is not None, name
        inputs = {**op.example.inputs, **({"backward": True} if name == "attention_cost" else {})}
        for output in op.outputs:
            value = evaluate(name, inputs, {"output": output})
            parts = value.values() if isinstance(value, dict) else [value]
            kinds = {np.asarray(v).dtype.kind for v in parts}
            assert (kinds <= set("iu")) == op.counts, (name, output, kinds)
