"""Each misconception's value against its mistake's formula, in plain numpy written here."""

import math

import numpy as np

from attention import attention_cost, evaluate

from .misconception_inputs import (
    BLOCK,
    CLOSE,
    DECODE,
    FFN,
    GQA,
    MHA,
    REQUESTS,
    X,
    attention,
    mha_reference,
    mistaken,
    r,
    softmax,
)
from .reference import reference_mha
from .reference_ops import reference_feed_forward, reference_layer_norm


def test_sdpa_mistakes_match_their_formulas():
    q, k, v = r(3, 4), r(3, 4), r(3, 2)
    inputs = {"q": q, "k": k, "v": v}
    out = mistaken("scaled_dot_product_attention", inputs, "out")
    np.testing.assert_allclose(out["no-scale"], attention(q, k, v, scale=1.0)[0], **CLOSE)
    unscaled = evaluate("scaled_dot_product_attention", {**inputs, "q": q * 2.0}, {"output": "out"})
    np.testing.assert_allclose(out["no-scale"], unscaled, **CLOSE)  # sqrt(d_k) = 2
    np.testing.assert_allclose(out["scale-by-dk"], attention(q, k, v, scale=0.25)[0], **CLOSE)
    np.testing.assert_allclose(out["qk-swapped"], attention(k, q, v)[0], **CLOSE)
    np.testing.assert_allclose(out["wrong-axis"], attention(q, k, v, axis=0)[0], **CLOSE)
    assert {"mask-ignored", "causal-off-by-one", "mask-as-zero"}.isdisjoint(out)  # no mask

    causal = mistaken("scaled_dot_product_attention", {**inputs, "causal": True}, "weights")
    np.testing.assert_allclose(causal["mask-ignored"], attention(q, k, v)[1], **CLOSE)
    one_more = attention(q, k, v, np.tri(3, 3, 1, dtype=bool))[1]
    np.testing.assert_allclose(causal["causal-off-by-one"], one_more, **CLOSE)
    scores = q @ k.T / 2
    zeroed = softmax(np.where(np.tri(3, 3, dtype=bool), scores, 0.0))
    np.testing.assert_allclose(causal["mask-as-zero"], zeroed, **CLOSE)


def test_queries_and_keys_swap_only_with_as_many_of_each():
    inputs = {"q": r(2, 4), "k": r(3, 4), "v": r(3, 2)}
    assert "qk-swapped" not in mistaken("scaled_dot_product_attention", inputs, "out")


def test_mha_mistakes_match_per_head_references():
    v = {**MHA, "causal": False}
    out = mistaken("multi_head_attention", v, "out")
    close = {"rtol": 1e-10, "atol": 1e-12}
    np.testing.assert_allclose(out["heads-reversed"], mha_reference(v, order=[1, 0])[0], **close)
    np.testing.assert_allclose(out["no-output-projection"], mha_reference(v, project=False)[0])
    by_width = mha_reference(v, scale=1 / math.sqrt(4))[0]
    np.testing.assert_allclose(out["scale-by-width"], by_width, **close)
    np.testing.assert_allclose(out["no-scale"], mha_reference(v, scale=1.0)[0], **close)
    swapped = mha_reference({**v, "w_q": v["w_k"], "w_k": v["w_q"]})[0]
    np.testing.assert_allclose(out["qk-swapped"], swapped, **close)
    # heads split as reshape(T, d_k, h): head i owns columns i, i + h, ...; joined back alike
    split = [attention(*(v["x"] @ v[n][:, i::2] for n in ("w_q", "w_k", "w_v")))[0] for i in (0, 1)]
    joined = np.stack(split, axis=-1).reshape(3, 4)
    np.testing.assert_allclose(out["heads-interleaved"], joined @ v["w_o"], **close)

    causal = mistaken("multi_head_attention", MHA, "weights")
    triangle = np.tri(3, dtype=bool)
    columns = mha_reference(MHA, allowed=triangle, axis=0)[1]
    np.testing.assert_allclose(causal["wrong-axis"], columns, **close)
    np.testing.assert_allclose(causal["mask-ignored"], mha_reference(MHA)[1], **close)
    one_more = mha_reference(MHA, allowed=np.tri(3, k=1, dtype=bool))[1]
    np.testing.assert_allclose(causal["causal-off-by-one"], one_more, **close)


def test_grouped_query_attention_pairs_heads_by_modulo_in_the_mistake():
    close = {"rtol": 1e-10, "atol": 1e-12}
    allowed = np.tri(3, dtype=bool)
    right = evaluate("grouped_query_attention", GQA, {"output": "weights"})
    np.testing.assert_allclose(right, mha_reference(GQA, lambda i: i // 2, allowed=allowed)[1])
    for output, index in (("out", 0), ("weights", 1)):
        value = mistaken("grouped_query_attention", GQA, output)["kv-group-modulo"]
        expected = mha_reference(GQA, lambda i: i % 2, allowed=allowed)[index]
        np.testing.assert_allclose(value, expected, **close)
        value = mistaken("grouped_query_attention", GQA, output)["wrong-axis"]
        expected = mha_reference(GQA, lambda i: i // 2, allowed=allowed, axis=0)[index]
        np.testing.assert_allclose(value, expected, **close)


def test_decoding_without_the_new_token_attends_over_the_cache_alone():
    v = DECODE
    q = v["x"] @ v["w_q"]
    keys, values = v["k_cache"], v["v_cache"]
    heads = [
        attention(q[None, i : i + 2], keys[:, i : i + 2], values[:, i : i + 2])[0] for i in (0, 2)
    ]
    expected = np.concatenate(heads, axis=1)[0] @ v["w_o"]
    value = mistaken("attention_decode", v, "out")["self-left-out"]
    np.testing.assert_allclose(value, expected, rtol=1e-10)
    first = {**v, "k_cache": [], "v_cache": []}  # nothing cached: no such mistake to make
    assert "self-left-out" not in mistaken("attention_decode", first, "out")


def test_head_mistakes_slice_the_head_as_the_mistake_does():
    v = REQUESTS["attention_head"][0]
    q = mistaken("attention_head", v, "q")["heads-interleaved"]
    np.testing.assert_array_equal(q, v["x"] @ v["w_q"][:, 1::2])
    out = mistaken("attention_head", v, "out")
    slices = [v["x"] @ v[n][:, 2:] for n in ("w_q", "w_k", "w_v")]
    causal = np.tri(3, dtype=bool)
    np.testing.assert_allclose(out["no-scale"], attention(*slices, causal, scale=1.0)[0])
    np.testing.assert_allclose(out["wrong-axis"], attention(*slices, causal, axis=0)[0])


def test_norm_mistakes_match_their_formulas():
    x, gamma, beta, eps = X, r(4), r(4), 1e-5
    out = mistaken("layer_norm", {"x": x, "gamma": gamma, "beta": beta, "eps": eps}, "out")
    mean, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
    np.testing.assert_allclose(out["no-epsilon"], (x - mean) / np.sqrt(var) * gamma + beta)
    sample = x.var(axis=-1, ddof=1, keepdims=True)
    np.testing.assert_allclose(
        out["sample-variance"], (x - mean) / np.sqrt(sample + eps) * gamma + beta
    )
    np.testing.assert_allclose(out["variance-not-std"], (x - mean) / (var + eps) * gamma + beta)
    by_feature = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps) * gamma + beta
    np.testing.assert_allclose(out["wrong-axis"], by_feature)

    out = mistaken("rms_norm", {"x": x, "gamma": gamma}, "out")
    np.testing.assert_allclose(
        out["no-epsilon"], x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True)) * gamma
    )
    length = np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(out["sum-not-mean"], x / length * gamma)
    np.testing.assert_allclose(out["mean-subtracted"], reference_layer_norm(x, gamma, None, 1e-6))

    vector = mistaken("layer_norm", {"x": [1.0, 2.0, 4.0]}, "out")
    assert "wrong-axis" not in vector  # one token: no token axis to normalise over


def gelu(z):
    return 0.5 * z * np.vectorize(math.erfc)(-z / math.sqrt(2))  # no cancelling below -8


def test_feed_forward_mistakes_match_their_formulas():
    v = FFN
    out = mistaken("feed_forward", v, "out")
    linear = (v["x"] @ v["w_1"] + v["b_1"]) @ v["w_2"] + v["b_2"]
    np.testing.assert_allclose(out["activation-after-output"], gelu(linear), rtol=1e-12)
    np.testing.assert_allclose(out["no-activation"], linear, rtol=1e-12)
    relu = reference_feed_forward(v["x"], v["w_1"], v["b_1"], v["w_2"], v["b_2"], "relu")
    np.testing.assert_allclose(out["relu-for-gelu"], relu, rtol=1e-12)
    no_bias = gelu(v["x"] @ v["w_1"]) @ v["w_2"]
    np.testing.assert_allclose(out["no-biases"], no_bias, rtol=1e-12, atol=1e-15)
    assert "gelu-for-relu" not in out


def test_cross_entropy_mistakes_match_their_formulas():
    logits, targets = np.abs(r(3, 4)) + 0.1, [0, 2, 1]
    inputs = {"logits": logits, "targets": targets}
    picked = logits[np.arange(3), targets]
    mean_loss = np.mean(np.log(np.exp(logits).sum(axis=-1)) - picked)
    loss = mistaken("cross_entropy", inputs, "loss")
    np.testing.assert_allclose(loss["summed"], 3 * mean_loss, rtol=1e-12)
    np.testing.assert_allclose(loss["logit-as-log-probability"], -np.mean(picked))
    np.testing.assert_allclose(loss["logit-as-probability"], -np.mean(np.log(picked)))
    np.testing.assert_allclose(loss["log-base-2"], mean_loss / math.log(2), rtol=1e-12)
    grad = mistaken("cross_entropy", inputs, "grad")
    right = (softmax(logits) - np.eye(4)[targets]) / 3
    np.testing.assert_allclose(grad["grad-not-averaged"], 3 * right, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(grad["grad-sign-flipped"], -right, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(grad["grad-one-hot-missing"], softmax(logits) / 3, rtol=1e-12)
    one_row = mistaken("cross_entropy", {"logits": logits[0], "targets": 0}, "loss")
    assert "summed" not in one_row  # a single row's sum is its mean


def test_cost_mistakes_match_the_counting_rules():
    b, t, d, h = 2, 4, 8, 2
    inputs = {"seq_len": t, "width": d, "heads": h, "batch": b, "bias": True}
    terms = mistaken("attention_cost", inputs, "terms")
    halved = terms["multiply-add-as-one"]
    assert halved["q_projection"] == b * t * d * d + b * t * d  # the bias add stays one flop
    assert halved["scores"] == halved["weighted_sum"] == b * t * t * d
    assert halved["softmax"] == b * h * t * (5 * t - 2)
    once = terms["heads-factor-missing"]
    assert (once["scaling"], once["softmax"]) == (b * t * t, b * t * (5 * t - 2))
    assert terms["heads-full-width"]["scores"] == 2 * b * t * t * d * h
    assert terms["batch-factor-missing"] == dict(attention_cost(t, d, h, 1, True).terms)
    params = mistaken("attention_cost", inputs, "params")
    assert params == {"params-without-output-projection": 3 * d * d + 3 * d}
    grouped = mistaken("attention_cost", {**inputs, "kv_heads": 1}, "flops")
    assert grouped["kv-heads-ignored"] == attention_cost(t, d, h, b, True).flops
    backward = mistaken("attention_cost", {**inputs, "backward": True}, "softmax_backward")
    assert backward["multiply-add-as-one"] == 3 * b * h * t * t


def angles(seq, width, base=10000.0):
    return np.arange(seq)[:, None] / base ** (2 * np.arange(width // 2) / width)


def test_position_mistakes_match_their_formulas():
    out = mistaken("sinusoidal_positions", {"seq_len": 3, "width": 4}, "out")
    a = angles(3, 4)
    swapped = np.stack([np.cos(a), np.sin(a)], axis=-1).reshape(3, 4)
    np.testing.assert_allclose(out["sin-cos-swapped"], swapped, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out["sines-then-cosines"], np.hstack([np.sin(a), np.cos(a)]))
    from_one = angles(4, 4)[1:]
    expected = np.stack([np.sin(from_one), np.cos(from_one)], axis=-1).reshape(3, 4)
    np.testing.assert_allclose(out["positions-from-one"], expected, rtol=1e-12)

    x, offset = X, 2
    out = mistaken("rope", {"x": x, "offset": offset}, "out")
    turn = (offset + np.arange(3))[:, None] * 10000.0 ** (-2 * np.arange(2) / 4)
    cos, sin = np.cos(turn), np.sin(turn)
    first, second = x[:, :2], x[:, 2:]  # GPT-NeoX pairs (i, i + d/2)
    halves = np.hstack([first * cos - second * sin, first * sin + second * cos])
    np.testing.assert_allclose(out["halves-rotated"], halves, rtol=1e-12, atol=1e-15)
    even, odd = x[:, 0::2], x[:, 1::2]
    back = np.stack([even * cos + odd * sin, -even * sin + odd * cos], axis=-1).reshape(3, 4)
    np.testing.assert_allclose(out["rotated-backwards"], back, rtol=1e-12, atol=1e-15)


def test_softmax_backward_mistakes_match_their_formulas():
    v = REQUESTS["softmax_backward"][0]
    y, g = v["y"], v["grad_y"]
    out = mistaken("softmax_backward", v, "grad_scores")
    np.testing.assert_allclose(out["no-subtraction"], y * g)
    np.testing.assert_allclose(out["y-factor-missing"], g - np.sum(g * y, axis=-1, keepdims=True))
    np.testing.assert_allclose(out["wrong-axis-sum"], y * (g - np.sum(g * y, axis=0)))


def test_sdpa_backward_mistakes_follow_the_chain_rule_with_one_step_wrong():
    q, k, v, g = r(3, 4), r(3, 4), r(3, 2), r(3, 2)
    p = attention(q, k, v)[1]
    dp = g @ v.T
    ds = p * (dp - np.sum(dp * p, axis=-1, keepdims=True))
    inputs = {"q": q, "k": k, "v": v, "grad_out": g}
    right = {
        n: evaluate("scaled_dot_product_attention_backward", inputs, {"output": n})
        for n in ("dq", "dk", "dv")
    }
    np.testing.assert_allclose(right["dq"], ds @ k / 2, rtol=1e-10)
    found = {
        n: mistaken("scaled_dot_product_attention_backward", inputs, n) for n in ("dq", "dk", "dv")
    }
    np.testing.assert_allclose(found["dq"]["backward-unscaled"], ds @ k, rtol=1e-10)
    np.testing.assert_allclose(found["dk"]["backward-unscaled"], ds.T @ q, rtol=1e-10)
    np.testing.assert_allclose(found["dq"]["no-subtraction"], p * dp @ k / 2, rtol=1e-10)
    np.testing.assert_allclose(found["dk"]["transpose-missed"], ds @ q / 2, rtol=1e-10)
    np.testing.assert_allclose(found["dv"]["transpose-missed"], p @ g, rtol=1e-10)
    assert "no-subtraction" not in found["dv"]  # dV = Pᵀ dO never meets the Jacobian


def test_mha_backward_mistakes_transpose_or_drop_paths():
    v = REQUESTS["multi_head_attention_backward"][0]
    right = {n: evaluate("multi_head_attention_backward", v, {"output": n}) for n in ("dx", "dw_q")}
    np.testing.assert_array_equal(
        mistaken("multi_head_attention_backward", v, "dw_q")["dw-transposed"], right["dw_q"].T
    )
    # the query path alone: the gradient of <grad_out, MHA> in the x that makes the queries
    step = 1e-6

    def loss(x_q):
        dk = 2
        allowed = np.tri(3, dtype=bool)
        outs = []
        for i in range(2):
            cols = slice(i * dk, (i + 1) * dk)
            q = x_q @ v["w_q"][:, cols]
            outs.append(
                attention(q, v["x"] @ v["w_k"][:, cols], v["x"] @ v["w_v"][:, cols], allowed)[0]
            )
        return np.sum(v["grad_out"] * (np.concatenate(outs, axis=1) @ v["w_o"]))

    numeric = np.zeros_like(v["x"])
    for index in np.ndindex(*v["x"].shape):
        bump = np.zeros_like(v["x"])
        bump[index] = step
        numeric[index] = (loss(v["x"] + bump) - loss(v["x"] - bump)) / (2 * step)
    dx = mistaken("multi_head_attention_backward", v, "dx")
    np.testing.assert_allclose(dx["dx-query-path-only"], numeric, rtol=1e-6, atol=1e-8)


def test_block_mistakes_rewire_the_engine_halves():
    v = BLOCK

    def mha(a):
        return reference_mha(a, v["w_q"], v["w_k"], v["w_v"], v["w_o"], 2, causal=True)

    def ln(a, n):
        return reference_layer_norm(a, v[f"ln_{n}_gamma"], v[f"ln_{n}_beta"])

    def ffn(a):
        return reference_feed_forward(a, v["w_1"], v["b_1"], v["w_2"], v["b_2"], "gelu")

    out = mistaken("transformer_block", v, "out")
    h = ln(v["x"] + mha(v["x"])[0], 1)
    np.testing.assert_allclose(out["post-norm"], ln(h + ffn(h), 2), rtol=1e-9, atol=1e-12)
    h = mha(ln(v["x"], 1))[0]
    np.testing.assert_allclose(out["no-residual"], ffn(ln(h, 2)), rtol=1e-9, atol=1e-12)
    h = v["x"] + mha(ln(v["x"], 1))[0]
    np.testing.assert_allclose(out["ffn-from-x"], h + ffn(ln(v["x"], 2)), rtol=1e-9, atol=1e-12)
    normed = ln(v["x"], 1)
    h = normed + mha(normed)[0]
    expected = ln(h, 2) + ffn(ln(h, 2))
    np.testing.assert_allclose(out["residual-from-normed"], expected, rtol=1e-9, atol=1e-12)


def test_decoding_makes_the_mistakes_of_the_last_row_of_grouped_attention():
    """A decoded token is the last row of causal attention over the whole sequence; its
    mistakes are that row of the same mistakes."""
    v = GQA
    earlier, token = v["x"][:2], v["x"][2]
    weights = {n: v[n] for n in ("w_q", "w_k", "w_v", "w_o", "heads", "kv_heads")}
    cache = {"k_cache": earlier @ v["w_k"], "v_cache": earlier @ v["w_v"]}
    decoded = mistaken("attention_decode", {**weights, **cache, "x": token}, "out")
    full = mistaken("grouped_query_attention", v, "out")
    shared = {"no-scale", "scale-by-width", "heads-reversed", "no-output-projection"}
    assert shared | {"kv-group-modulo"} <= set(decoded)
    for name in shared | {"kv-group-modulo"}:
        np.testing.assert_allclose(decoded[name], full[name][2], rtol=1e-10, atol=1e-12)
