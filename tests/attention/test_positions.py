"""Sinusoidal positions and RoPE: loop references, norms kept, relative-position scores."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import EngineInputError, evaluate, rope, sinusoidal_positions

from .reference_ops import reference_rope, reference_sinusoidal

CASES = settings(max_examples=30, deadline=None, database=None)


@CASES
@given(st.integers(1, 12), st.integers(1, 9), st.sampled_from([100.0, 10000.0]))
def test_sinusoidal_table_agrees_with_the_loop_reference(seq, width, base):
    np.testing.assert_allclose(
        sinusoidal_positions(seq, width, base),
        reference_sinusoidal(seq, width, base),
        rtol=1e-12,
        atol=1e-14,
    )


def test_even_columns_are_sines_and_odd_cosines_of_the_same_angle():
    table = sinusoidal_positions(5, 6)
    np.testing.assert_allclose(table[:, 0::2] ** 2 + table[:, 1::2] ** 2, 1.0, rtol=1e-12)
    np.testing.assert_allclose(table[:, 0], np.sin(np.arange(5)), rtol=1e-12)


@CASES
@given(st.sampled_from([(3, 4), (2, 5, 2), (1, 6, 8)]), st.integers(0, 40), st.integers(0, 99))
def test_rope_agrees_with_the_loop_reference(shape, offset, seed):
    x = np.random.default_rng(seed).normal(size=shape)
    np.testing.assert_allclose(
        rope(x, offset=offset), reference_rope(x, offset=offset), rtol=1e-10, atol=1e-12
    )


def test_rope_keeps_every_pair_norm():
    x = np.random.default_rng(1).normal(size=(7, 8))
    out = rope(x, base=100.0)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(
        out[..., 0::2] ** 2 + out[..., 1::2] ** 2, x[..., 0::2] ** 2 + x[..., 1::2] ** 2, rtol=1e-12
    )


def test_rope_scores_depend_only_on_the_relative_position():
    rng = np.random.default_rng(2)
    q, k = rng.normal(size=8), rng.normal(size=8)

    def score(m, n):
        # q at position m, k at position n
        return rope(q[None], offset=m)[0] @ rope(k[None], offset=n)[0]

    for shift in (0, 1, 5, 40):
        assert score(3 + shift, 1 + shift) == pytest.approx(score(3, 1), rel=1e-10)
        assert score(shift, 6 + shift) == pytest.approx(score(0, 6), rel=1e-10)


def test_offset_continues_the_sequence():
    x = np.random.default_rng(3).normal(size=(6, 4))
    np.testing.assert_allclose(rope(x)[4:], rope(x[4:], offset=4), rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (lambda: rope(np.ones((2, 3))), "inputs.x"),
        (lambda: rope(np.ones(4)), "inputs.x"),
        (lambda: rope(np.ones((2, 4)), offset=-1), "inputs.offset"),
        (lambda: rope(np.ones((2, 4)), base=0), "inputs.base"),
        (lambda: sinusoidal_positions(0, 4), "inputs.seq_len"),
        (lambda: sinusoidal_positions(2, 4.0), "inputs.width"),
    ],
)
def test_bad_input_names_the_input(call, path):
    with pytest.raises(EngineInputError) as info:
        call()
    assert [p.path for p in info.value.problems] == [path]


def test_registry_refuses_odd_widths_and_oversized_tables():
    with pytest.raises(EngineInputError) as info:
        evaluate("rope", {"x": [[1, 2, 3]]}, {"output": "out"})
    assert "even" in str(info.value)
    with pytest.raises(EngineInputError) as info:
        evaluate("sinusoidal_positions", {"seq_len": 10**6, "width": 4}, {"output": "out"})
    assert [p.path for p in info.value.problems] == ["inputs.seq_len"]
