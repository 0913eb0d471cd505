"""attention_cost: exact counts by term, parameters, and what depends on the number of heads."""

import pytest

import attention
from attention import HEAD_DEPENDENT_TERMS, TERM_NAMES, EngineInputError, attention_cost


def test_cost_terms_match_a_hand_count():
    # B=1, T=4, d=8, h=2
    cost = attention_cost(4, 8, 2)
    assert dict(cost.terms) == {
        "q_projection": 2 * 4 * 8 * 8,  # 512
        "k_projection": 512,
        "v_projection": 512,
        "output_projection": 512,
        "scores": 2 * 4 * 4 * 8,  # 256
        "scaling": 2 * 4 * 4,  # 32
        "softmax": 2 * 4 * (5 * 4 - 2),  # 144
        "weighted_sum": 256,
    }
    assert cost.flops == 4 * 512 + 256 + 32 + 144 + 256 == 2736
    assert cost.params == 4 * 8 * 8


def test_bias_adds_one_add_per_projection_output_and_4d_params():
    plain, biased = attention_cost(4, 8, 2, batch=3), attention_cost(4, 8, 2, batch=3, bias=True)
    for term in ("q_projection", "k_projection", "v_projection", "output_projection"):
        assert biased.terms[term] - plain.terms[term] == 3 * 4 * 8
    assert biased.params == plain.params + 4 * 8


def test_batch_scales_flops_but_not_params():
    one, three = attention_cost(16, 32, 4), attention_cost(16, 32, 4, batch=3)
    assert three.flops == 3 * one.flops
    assert three.params == one.params


def test_changing_heads_changes_only_scaling_and_softmax():
    one, eight = attention_cost(64, 64, 1), attention_cost(64, 64, 8)
    for term in TERM_NAMES:
        if term in HEAD_DEPENDENT_TERMS:
            assert eight.terms[term] == 8 * one.terms[term]
        else:
            assert eight.terms[term] == one.terms[term]
    assert eight.params == one.params
    assert one.head_dependent_terms() == {"scaling", "softmax"}
    assert {"scaling", "softmax", "scaling_backward", "softmax_backward"} == HEAD_DEPENDENT_TERMS


def test_term_names_are_exactly_the_documented_ones():
    assert set(attention_cost(2, 2, 1).terms) == {
        "q_projection",
        "k_projection",
        "v_projection",
        "output_projection",
        "scores",
        "scaling",
        "softmax",
        "weighted_sum",
    }


@pytest.mark.parametrize(
    ("args", "path"),
    [
        ((0, 8, 2), "inputs.seq_len"),
        ((4, 8, 3), "inputs.heads"),
        ((4, 8.0, 2), "inputs.width"),
        ((4, 8, True), "inputs.heads"),
    ],
)
def test_bad_cost_arguments_raise(args, path):
    with pytest.raises(EngineInputError) as info:
        attention_cost(*args)
    assert [p.path for p in info.value.problems] == [path]


def test_cost_is_frozen():
    cost = attention_cost(4, 8, 2)
    with pytest.raises(AttributeError):
        cost.params = 0


@pytest.mark.parametrize(
    ("seq_len", "said"),
    [
        (10**300, "inputs.seq_len: 1e+300 exceeds the limit of 1000000000"),
        (-(10**400), "inputs.seq_len: must be a positive integer, got an integer of 401 digits"),
        (36943215058793620, "inputs.seq_len: 36943215058793620 exceeds the limit of 1000000000"),
    ],
)
def test_a_huge_integer_is_said_in_a_short_form(seq_len, said):
    """1e300 in a file is read as the integer it is: the refusal had printed all 301 digits."""
    with pytest.raises(EngineInputError) as refused:
        attention.evaluate("attention_cost", {"seq_len": seq_len, "width": 8, "heads": 2}, {})
    assert str(refused.value.problems[0]) == said
