"""Loop references for the Book II operations, written independently of ``attention/``.

Plain Python over rows and scalars with the ``math`` module, always float64; numpy only to hold
arrays and for the matrix products of the attention reference in ``reference.py``.
"""

from __future__ import annotations

import math

import numpy as np

from .reference import reference_attention


def _rows(x: np.ndarray) -> list[np.ndarray]:
    return list(np.asarray(x, dtype=np.float64).reshape(-1, np.shape(x)[-1]))


def reference_layer_norm(x, gamma=None, beta=None, eps=1e-5):
    x64 = np.asarray(x, dtype=np.float64)
    d = x64.shape[-1]
    out = []
    for row in _rows(x64):
        mean = sum(float(v) for v in row) / d
        var = sum((float(v) - mean) ** 2 for v in row) / d
        out.append(
            [
                (float(row[j]) - mean) / math.sqrt(var + eps) * (1.0 if gamma is None else gamma[j])
                + (0.0 if beta is None else beta[j])
                for j in range(d)
            ]
        )
    return np.array(out).reshape(x64.shape)


def reference_rms_norm(x, gamma=None, eps=1e-6):
    x64 = np.asarray(x, dtype=np.float64)
    d = x64.shape[-1]
    out = []
    for row in _rows(x64):
        rms = math.sqrt(sum(float(v) ** 2 for v in row) / d + eps)
        out.append([float(row[j]) / rms * (1.0 if gamma is None else gamma[j]) for j in range(d)])
    return np.array(out).reshape(x64.shape)


def reference_activation(name, z):
    if name == "relu":
        return max(z, 0.0)
    if name == "gelu":
        return 0.5 * z * (1.0 + math.erf(z / math.sqrt(2.0)))
    return 0.5 * z * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z**3)))


def reference_feed_forward(x, w_1, b_1, w_2, b_2, activation="gelu"):
    x64 = np.asarray(x, dtype=np.float64)
    w1, b1, w2, b2 = (np.asarray(a, dtype=np.float64) for a in (w_1, b_1, w_2, b_2))
    out = []
    for row in _rows(x64):
        hidden = [
            reference_activation(
                activation, sum(float(row[i]) * w1[i, f] for i in range(len(row))) + b1[f]
            )
            for f in range(w1.shape[1])
        ]
        out.append(
            [
                sum(hidden[f] * w2[f, c] for f in range(len(hidden))) + b2[c]
                for c in range(w2.shape[1])
            ]
        )
    return np.array(out).reshape(x64.shape[:-1] + (w2.shape[1],))


def reference_sinusoidal(seq_len, width, base=10000.0):
    table = np.zeros((seq_len, width))
    for p in range(seq_len):
        for c in range(width):
            angle = p / base ** (2 * (c // 2) / width)
            table[p, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return table


def reference_rope(x, base=10000.0, offset=0):
    x64 = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x64)
    rows, dk = x64.shape[-2:]
    for lead in np.ndindex(x64.shape[:-2]):
        for t in range(rows):
            for i in range(dk // 2):
                angle = (offset + t) * base ** (-2 * i / dk)
                a, b = float(x64[lead + (t, 2 * i)]), float(x64[lead + (t, 2 * i + 1)])
                out[lead + (t, 2 * i)] = a * math.cos(angle) - b * math.sin(angle)
                out[lead + (t, 2 * i + 1)] = a * math.sin(angle) + b * math.cos(angle)
    return out


def reference_gqa(x, w_q, w_k, w_v, w_o, heads, kv_heads, mask=None, causal=False):
    """Grouped-query attention by loops: query head i reads key/value head i // group."""
    x64 = np.asarray(x, dtype=np.float64)
    batched = x64.ndim == 3
    xs = x64 if batched else x64[None]
    wq, wk, wv, wo = (np.asarray(w, dtype=np.float64) for w in (w_q, w_k, w_v, w_o))
    dk = xs.shape[-1] // heads
    group = heads // kv_heads
    outs, all_weights = [], []
    for b in range(xs.shape[0]):
        allowed = None
        if mask is not None:
            m = np.asarray(mask, dtype=bool)
            allowed = m if m.ndim == 2 else m[b]
        head_outs, head_weights = [], []
        for i in range(heads):
            j = i // group
            q = xs[b] @ wq[:, i * dk : (i + 1) * dk]
            k = xs[b] @ wk[:, j * dk : (j + 1) * dk]
            v = xs[b] @ wv[:, j * dk : (j + 1) * dk]
            out, weights = reference_attention(q, k, v, allowed, causal, False)
            head_outs.append(out)
            head_weights.append(weights)
        outs.append(np.concatenate(head_outs, axis=1) @ wo)
        all_weights.append(np.stack(head_weights))
    out_arr, w_arr = np.stack(outs), np.stack(all_weights)
    return (out_arr, w_arr) if batched else (out_arr[0], w_arr[0])


def reference_cross_entropy(logits, targets):
    """Mean of -log softmax(row)[target] over rows, each row by explicit loops."""
    z = np.asarray(logits, dtype=np.float64)
    rows = z.reshape(-1, z.shape[-1])
    picks = np.asarray(targets).reshape(-1)
    total = 0.0
    for row, t in zip(rows, picks, strict=True):
        peak = max(float(v) for v in row)
        lse = peak + math.log(sum(math.exp(float(v) - peak) for v in row))
        total += lse - float(row[int(t)])
    return total / len(rows)


def reference_softmax_backward(y, grad_y):
    """g^T J per row with the explicit Jacobian J = diag(y) - y y^T."""
    y64 = np.asarray(y, dtype=np.float64)
    g64 = np.asarray(grad_y, dtype=np.float64)
    out = []
    for yr, gr in zip(_rows(y64), _rows(g64), strict=True):
        n = len(yr)
        out.append(
            [
                sum(gr[i] * ((yr[i] if i == j else 0.0) - yr[i] * yr[j]) for i in range(n))
                for j in range(n)
            ]
        )
    return np.array(out).reshape(y64.shape)


def central_difference(loss, arrays, index, eps=1e-6):
    """d loss / d arrays[index] by central differences, entry by entry, in float64."""
    target = arrays[index]
    grad = np.zeros_like(target, dtype=np.float64)
    for where in np.ndindex(target.shape):
        old = target[where]
        target[where] = old + eps
        up = loss(*arrays)
        target[where] = old - eps
        down = loss(*arrays)
        target[where] = old
        grad[where] = (up - down) / (2 * eps)
    return grad
