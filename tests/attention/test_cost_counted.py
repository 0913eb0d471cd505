"""attention_cost's kv_heads and backward terms against an instrumented loop that counts.

The loop runs grouped-query attention forward and then backpropagates through it over Python
floats, counting each operation under its term as it happens (a multiply-add is 2, any other
elementwise operation 1, every sum accumulated from zero). Its gradients are checked against the
engine's, so the counter counts a backward pass that really computes the gradients.
"""

import math
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import TERM_NAMES, attention_cost, multi_head_attention_backward

BACKWARD = (
    "output_projection_backward",
    "weighted_sum_backward",
    "softmax_backward",
    "scaling_backward",
    "scores_backward",
    "q_projection_backward",
    "k_projection_backward",
    "v_projection_backward",
)


def zeros(rows, cols):
    return [[0.0] * cols for _ in range(rows)]


class Counted:
    """One sequence (T, d) through GQA and back, with every flop tallied by term."""

    def __init__(self, heads, kv_heads, bias):
        self.flops: Counter = Counter()
        self.heads, self.kv, self.bias = heads, kv_heads, bias

    def matmul(self, term, a, b, transpose_a=False, transpose_b=False):
        rows = len(a[0]) if transpose_a else len(a)
        inner = len(a) if transpose_a else len(a[0])
        cols = len(b) if transpose_b else len(b[0])
        out = zeros(rows, cols)
        for i in range(rows):
            for j in range(cols):
                acc = 0.0
                for k in range(inner):
                    left = a[k][i] if transpose_a else a[i][k]
                    right = b[j][k] if transpose_b else b[k][j]
                    acc += left * right
                    self.flops[term] += 2
                out[i][j] = acc
        return out

    def add_bias(self, term, rows):
        for row in rows:
            for j in range(len(row)):
                row[j] += 0.0  # a zero bias: the add still happens
                self.flops[term] += 1

    def bias_grad(self, term, grad):
        for j in range(len(grad[0])):
            acc = 0.0
            for row in grad:
                acc += row[j]
                self.flops[term] += 1

    def forward_backward(self, x, w_q, w_k, w_v, w_o, grad_out):
        h, kv = self.heads, self.kv
        d = len(x[0])
        dk, group, t_len = d // h, h // kv, len(x)
        proj = {}
        for name, w in (("q", w_q), ("k", w_k), ("v", w_v)):
            proj[name] = self.matmul(f"{name}_projection", x, w)
            if self.bias:
                self.add_bias(f"{name}_projection", proj[name])
        concat = zeros(t_len, d)
        cache = []
        for i in range(h):
            j = i // group
            q = [row[i * dk : (i + 1) * dk] for row in proj["q"]]
            k = [row[j * dk : (j + 1) * dk] for row in proj["k"]]
            v = [row[j * dk : (j + 1) * dk] for row in proj["v"]]
            scores = self.matmul("scores", q, k, transpose_b=True)
            for row in scores:
                for s in range(t_len):
                    row[s] *= 1 / math.sqrt(dk)
                    self.flops["scaling"] += 1
            weights = [self.softmax(row) for row in scores]
            out = self.matmul("weighted_sum", weights, v)
            for t in range(t_len):
                concat[t][i * dk : (i + 1) * dk] = out[t]
            cache.append((q, k, v, weights))
        result = self.matmul("output_projection", concat, w_o)
        if self.bias:
            self.add_bias("output_projection", result)

        # backward
        dw_o = self.matmul("output_projection_backward", concat, grad_out, transpose_a=True)
        d_concat = self.matmul("output_projection_backward", grad_out, w_o, transpose_b=True)
        if self.bias:
            self.bias_grad("output_projection_backward", grad_out)
        grads = {n: zeros(t_len, len(p[0])) for n, p in proj.items()}
        for i, (q, k, v, weights) in enumerate(cache):
            j = i // group
            d_out = [row[i * dk : (i + 1) * dk] for row in d_concat]
            dv = self.matmul("weighted_sum_backward", weights, d_out, transpose_a=True)
            dp = self.matmul("weighted_sum_backward", d_out, v, transpose_b=True)
            ds = [
                self.softmax_grad(p_row, dp_row) for p_row, dp_row in zip(weights, dp, strict=True)
            ]
            for row in ds:
                for s in range(t_len):
                    row[s] *= 1 / math.sqrt(dk)
                    self.flops["scaling_backward"] += 1
            dq = self.matmul("scores_backward", ds, k)
            dkey = self.matmul("scores_backward", ds, q, transpose_a=True)
            for t in range(t_len):
                for c in range(dk):
                    grads["q"][t][i * dk + c] = dq[t][c]
                    # a shared head's gradient continues the same accumulation: no extra flop
                    grads["k"][t][j * dk + c] += dkey[t][c]
                    grads["v"][t][j * dk + c] += dv[t][c]
        dws, dx = [], zeros(t_len, d)
        for name, w in (("q", w_q), ("k", w_k), ("v", w_v)):
            term = f"{name}_projection_backward"
            dws.append(self.matmul(term, x, grads[name], transpose_a=True))
            part = self.matmul(term, grads[name], w, transpose_b=True)
            for t in range(t_len):
                for a in range(d):
                    dx[t][a] += part[t][a]  # continues the accumulation into dx: counted above
            if self.bias:
                self.bias_grad(term, grads[name])
        return result, (dx, *dws, dw_o)

    def softmax(self, row):
        peak = row[0]
        for value in row[1:]:
            self.flops["softmax"] += 1
            peak = value if value > peak else peak
        exps = []
        for value in row:
            self.flops["softmax"] += 2  # subtraction and exp
            exps.append(math.exp(value - peak))
        total = exps[0]
        for value in exps[1:]:
            self.flops["softmax"] += 1
            total += value
        self.flops["softmax"] += len(row)  # divisions
        return [e / total for e in exps]

    def softmax_grad(self, p_row, dp_row):
        dot = 0.0
        for p, dp in zip(p_row, dp_row, strict=True):
            dot += p * dp
            self.flops["softmax_backward"] += 2
        out = []
        for p, dp in zip(p_row, dp_row, strict=True):
            self.flops["softmax_backward"] += 2  # subtraction and multiplication
            out.append(p * (dp - dot))
        return out


@settings(max_examples=20, deadline=None, database=None)
@given(
    batch=st.integers(1, 2),
    seq=st.integers(1, 3),
    kv=st.integers(1, 2),
    group=st.integers(1, 2),
    dk=st.integers(1, 2),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_kv_heads_and_backward_terms_equal_what_a_loop_performs(
    batch, seq, kv, group, dk, bias, seed
):
    heads = kv * group
    width, d_kv = heads * dk, kv * dk
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, seq, width))
    w_q, w_o = rng.normal(size=(width, width)), rng.normal(size=(width, width))
    w_k, w_v = rng.normal(size=(width, d_kv)), rng.normal(size=(width, d_kv))
    grad_out = rng.normal(size=(batch, seq, width))

    counter = Counted(heads, kv, bias)
    grads = [
        counter.forward_backward(
            x[b].tolist(),
            w_q.tolist(),
            w_k.tolist(),
            w_v.tolist(),
            w_o.tolist(),
            grad_out[b].tolist(),
        )[1]
        for b in range(batch)
    ]
    cost = attention_cost(seq, width, heads, batch=batch, bias=bias, kv_heads=kv, backward=True)

    assert dict(cost.terms) == {term: counter.flops[term] for term in (*TERM_NAMES, *BACKWARD)}
    assert cost.flops == sum(counter.flops.values())
    assert cost.params == sum(w.size for w in (w_q, w_k, w_v, w_o)) + (
        2 * width + 2 * d_kv if bias else 0
    )
    if kv == heads:  # the counted pass is a real backward pass: it matches the engine's
        engine = multi_head_attention_backward(x, w_q, w_k, w_v, w_o, heads, grad_out)
        np.testing.assert_allclose([g[0] for g in grads], engine[0], rtol=1e-9, atol=1e-12)
        for i in range(1, 5):
            np.testing.assert_allclose(
                sum(np.array(g[i]) for g in grads), engine[i], rtol=1e-9, atol=1e-12
            )


def test_forward_only_has_no_backward_terms_and_grouping_shrinks_only_k_and_v():
    full, grouped = attention_cost(16, 64, 8), attention_cost(16, 64, 8, kv_heads=2)
    assert set(full.terms) == set(TERM_NAMES)
    changed = {t for t in TERM_NAMES if full.terms[t] != grouped.terms[t]}
    assert changed == {"k_projection", "v_projection"}
    assert grouped.terms["k_projection"] * 4 == full.terms["k_projection"]
    assert full.params - grouped.params == 2 * 64 * (64 - 16)
    assert attention_cost(16, 64, 8, kv_heads=8) == full
