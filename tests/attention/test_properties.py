"""Property tests: random shapes against the loop reference, and flops counted by hand.

The cost check does not restate the formulas of ``attention_cost``: it runs multi-head attention
as plain Python loops over scalars and counts every operation as it happens (a multiply-add is
2, any other elementwise operation 1), then compares those counts with the terms exactly.
"""

import math
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import TERM_NAMES, attention_cost, multi_head_attention

from .reference import reference_mha

CASES = settings(max_examples=60, deadline=None, database=None)  # no .hypothesis/ files


@st.composite
def attention_cases(draw, dtype=np.float64):
    """x, four weights, heads, a mask (or none) and causal, with at least one key per query."""
    batch = draw(st.one_of(st.none(), st.integers(1, 3)))
    seq, heads, dk = draw(st.integers(1, 6)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    width = heads * dk
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([0.1, 1.0, 10.0]))
    x = rng.normal(size=(seq, width) if batch is None else (batch, seq, width)) * scale
    ws = [rng.normal(size=(width, width)) for _ in range(4)]
    mask = None
    if draw(st.booleans()):
        shape = (seq, seq) if batch is None or draw(st.booleans()) else (batch, seq, seq)
        mask = rng.random(shape) < 0.5
        mask[..., np.arange(seq), np.arange(seq)] = True  # each query may see itself
    causal = draw(st.booleans())
    return x.astype(dtype), [w.astype(dtype) for w in ws], heads, mask, causal


@CASES
@given(attention_cases())
def test_mha_agrees_with_the_loop_reference_for_any_batch_mask_and_causal(case):
    x, ws, heads, mask, causal = case
    x_before = x.copy()

    out, weights = multi_head_attention(x, *ws, heads, mask=mask, causal=causal)
    ref_out, ref_weights = reference_mha(x, *ws, heads, mask=mask, causal=causal)

    assert out.dtype == np.float64 and out.shape == x.shape
    assert weights.shape == ref_weights.shape
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(x, x_before)


@CASES
@given(attention_cases(dtype=np.float32))
def test_float32_stays_float32_and_agrees_with_the_float64_reference(case):
    x, ws, heads, mask, causal = case

    out, weights = multi_head_attention(x, *ws, heads, mask=mask, causal=causal)
    ref_out, ref_weights = reference_mha(x, *ws, heads, mask=mask, causal=causal)

    assert out.dtype == weights.dtype == np.float32
    scale = max(1.0, float(np.abs(ref_out).max()))
    np.testing.assert_allclose(out, ref_out, rtol=1e-4, atol=1e-4 * scale)
    # a weight is exp of a score float32 holds to its unit in the last place: scores of 400
    # move it by some 1e-4 of itself, whatever the engine does (hypothesis found one)
    x64, w_q, w_k = (np.asarray(a, dtype=np.float64) for a in (x, ws[0], ws[1]))
    longest = [float(np.linalg.norm(x64 @ w, axis=-1).max()) for w in (w_q, w_k)]
    largest = longest[0] * longest[1] / math.sqrt(x.shape[-1] // heads)
    rtol = 1e-4 + 8 * float(np.finfo(np.float32).eps) * largest
    np.testing.assert_allclose(weights, ref_weights, rtol=rtol, atol=1e-5)


def counted_attention(x, ws, biases, heads):
    """Unmasked multi-head attention over Python floats, counting each operation by term.

    ``x`` is (B, T, d) nested lists; returns (out, flops by term).
    """
    flops: Counter = Counter()
    w_q, w_k, w_v, w_o = ws

    def project(term, rows, w, b):
        out = []
        for row in rows:
            out_row = []
            for col in range(len(w[0])):
                acc = 0.0
                for i, value in enumerate(row):
                    acc += value * w[i][col]
                    flops[term] += 2  # one multiply-add
                if b is not None:
                    acc += b[col]
                    flops[term] += 1
                out_row.append(acc)
            out.append(out_row)
        return out

    def softmax(row):
        peak = row[0]
        for value in row[1:]:
            flops["softmax"] += 1  # comparison
            peak = value if value > peak else peak
        shifted = []
        for value in row:
            flops["softmax"] += 1  # subtraction
            shifted.append(value - peak)
        exps = []
        for value in shifted:
            flops["softmax"] += 1  # exp
            exps.append(math.exp(value))
        total = exps[0]
        for value in exps[1:]:
            flops["softmax"] += 1  # addition
            total += value
        result = []
        for value in exps:
            flops["softmax"] += 1  # division
            result.append(value / total)
        return result

    width = len(w_q)
    dk = width // heads
    outs = []
    for rows in x:
        q, k, v = (
            project(f"{n}_projection", rows, w, b)
            for n, w, b in zip("qkv", (w_q, w_k, w_v), biases[:3], strict=True)
        )
        concat = [[0.0] * width for _ in rows]
        for h in range(heads):
            cols = range(h * dk, (h + 1) * dk)
            for t in range(len(rows)):
                scores = []
                for s in range(len(rows)):
                    acc = 0.0
                    for c in cols:
                        acc += q[t][c] * k[s][c]
                        flops["scores"] += 2
                    flops["scaling"] += 1
                    scores.append(acc * (1 / math.sqrt(dk)))
                weights = softmax(scores)
                for c in cols:
                    acc = 0.0
                    for s, weight in enumerate(weights):
                        acc += weight * v[s][c]
                        flops["weighted_sum"] += 2
                    concat[t][c] = acc
        outs.append(project("output_projection", concat, w_o, biases[3]))
    return outs, flops


@settings(max_examples=25, deadline=None, database=None)
@given(
    batch=st.integers(1, 2),
    seq=st.integers(1, 4),
    heads=st.integers(1, 3),
    dk=st.integers(1, 2),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_attention_cost_equals_the_operations_a_loop_actually_performs(
    batch, seq, heads, dk, bias, seed
):
    width = heads * dk
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, seq, width))
    ws = [rng.normal(size=(width, width)) for _ in range(4)]
    biases = [[0.0] * width] * 4 if bias else [None] * 4

    out, counted = counted_attention(x.tolist(), [w.tolist() for w in ws], biases, heads)
    cost = attention_cost(seq, width, heads, batch=batch, bias=bias)

    assert dict(cost.terms) == {term: counted[term] for term in TERM_NAMES}
    assert cost.flops == sum(counted.values())
    assert cost.params == sum(w.size for w in ws) + (4 * width if bias else 0)
    np.testing.assert_allclose(out, multi_head_attention(x, *ws, heads)[0], rtol=1e-10, atol=1e-12)
