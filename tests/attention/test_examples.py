"""Every operation carries a worked example for the reference, and the engine agrees with it."""

import numpy as np
import pytest

from attention import KINDS, OPERATIONS, EngineInputError, check, compare, evaluate


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_the_worked_example_evaluates_to_its_answer(name):
    op = OPERATIONS[name]
    assert op.example is not None, f"{name} has no worked example"
    assert check(name, op.example.inputs, op.example.ask) == []
    value = evaluate(name, op.example.inputs, op.example.ask)
    assert compare(value, op.example.answer, digits=4).ok  # written as an author writes it
    assert op.example.note


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_parameters_have_known_kinds_and_described_shapes(name):
    for param in OPERATIONS[name].parameters:
        assert param.kind in KINDS
        assert param.shape
        assert (param.kind == "choice") == bool(param.choices)


def test_backward_cost_terms_are_asked_only_with_backward():
    inputs = {"seq_len": 4, "width": 8, "heads": 2}
    with pytest.raises(EngineInputError) as info:
        evaluate("attention_cost", inputs, {"output": "softmax_backward"})
    assert [p.path for p in info.value.problems] == ["ask.output"]
    assert "backward: true" in str(info.value)
    value = evaluate("attention_cost", {**inputs, "backward": True}, {"output": "softmax_backward"})
    assert int(value) == 4 * 2 * 4 * 4
    grouped = evaluate("attention_cost", {**inputs, "kv_heads": 1}, {"output": "params"})
    assert int(grouped) == 2 * 8 * 8 + 2 * 8 * 4
    with pytest.raises(EngineInputError) as info:
        evaluate("attention_cost", {**inputs, "kv_heads": 3}, {"output": "flops"})
    assert [p.path for p in info.value.problems] == ["inputs.kv_heads"]


def test_backward_work_counts_against_the_flop_limit():
    """A layer whose forward pass fits the flop limit can still be refused for its gradients."""
    x, w = np.zeros((2048, 1536)), np.zeros((1536, 1536))
    inputs = {"x": x, "w_q": w, "w_k": w, "w_v": w, "w_o": w, "heads": 1}
    assert check("multi_head_attention", inputs, {"output": "out"}) == []
    problems = check("multi_head_attention_backward", {**inputs, "grad_out": x}, {"output": "dx"})
    assert [p.path for p in problems] == ["inputs"]
    assert "flops" in problems[0].message
