"""Misconceptions of the layer operations: the two norms, the feed-forward network and the block.

Each computes with the engine's norms, activations, attention and feed-forward network, on
changed inputs or wired the mistaken way; ``checked_layer_norm`` takes what a request cannot
(no epsilon, the sample variance).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attention.block import activate, feed_forward
from attention.core import multi_head_attention
from attention.norms import checked_layer_norm, checked_rms_norm, layer_norm
from attention.registry.attention_mistakes import Run, mask_mistakes
from attention.registry.operation import Misconception, Values

Stream = Callable[[np.ndarray], np.ndarray]


def _affine(v: Values, out: np.ndarray) -> np.ndarray:
    gamma, beta = v.get("gamma"), v.get("beta")
    return out * (1.0 if gamma is None else gamma) + (0.0 if beta is None else beta)


def _over_tokens(v: Values, norm: Stream) -> Values:
    """``norm`` (without gamma and beta) of each feature over the tokens, as batch norm does,
    then gamma and beta per feature; a vector has no token axis to mistake."""
    x = v["x"]
    if x.ndim < 2:
        return {}
    return {"out": _affine(v, np.swapaxes(norm(np.swapaxes(x, -1, -2)), -1, -2))}


WRONG_AXIS = (
    "This is what you get normalising each feature over the tokens (as batch norm does) "
    "instead of each token over its features."
)
NO_EPSILON = "This is what you get leaving epsilon out of the square root."


def _layer_norm(v: Values, eps: float, ddof: int = 0) -> Values:
    return {"out": checked_layer_norm(v["x"], v.get("gamma"), v.get("beta"), eps, ddof)}


def _variance_not_std(v: Values) -> Values:
    x = v["x"]
    centred = x - x.mean(axis=-1, keepdims=True)
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return {"out": _affine(v, centred / (var + v.get("eps", 1e-5)))}


LAYER_NORM_MISTAKES = (
    Misconception("no-epsilon", NO_EPSILON, lambda v: _layer_norm(v, 0.0)),
    Misconception(
        "sample-variance",
        "This is what you get dividing the variance by d - 1 (the sample variance) instead of "
        "by d.",
        lambda v: _layer_norm(v, v.get("eps", 1e-5), ddof=1),
    ),
    Misconception(
        "wrong-axis",
        WRONG_AXIS,
        lambda v: _over_tokens(v, lambda a: checked_layer_norm(a, None, None, v.get("eps", 1e-5))),
    ),
    Misconception(
        "variance-not-std",
        "This is what you get dividing by the variance instead of the standard deviation (its "
        "square root).",
        _variance_not_std,
    ),
)


def _rms_over_length(v: Values) -> Values:
    x = v["x"]
    return {
        "out": _affine(v, x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + v.get("eps", 1e-6)))
    }


RMS_NORM_MISTAKES = (
    Misconception(
        "no-epsilon", NO_EPSILON, lambda v: {"out": checked_rms_norm(v["x"], v.get("gamma"), 0.0)}
    ),
    Misconception(
        "wrong-axis",
        WRONG_AXIS,
        lambda v: _over_tokens(v, lambda a: checked_rms_norm(a, None, v.get("eps", 1e-6))),
    ),
    Misconception(
        "mean-subtracted",
        "This is what you get subtracting the mean first, as layer norm does.",
        lambda v: {"out": checked_layer_norm(v["x"], v.get("gamma"), None, v.get("eps", 1e-6))},
    ),
    Misconception(
        "sum-not-mean",
        "This is what you get dividing by the length √(Σ x²) instead of the root mean square "
        "√(mean x²).",
        _rms_over_length,
    ),
)


def _ffn(v: Values, **changes: object) -> Values:
    w = {**v, **changes}
    args = (w["x"], w["w_1"], w["b_1"], w["w_2"], w["b_2"], w.get("activation", "gelu"))
    return {"out": feed_forward(*args)}


def _activation_for(v: Values, mistaken: str, instead_of: tuple[str, ...]) -> Values:
    """The network with activation ``mistaken`` where the request names one of ``instead_of``."""
    return _ffn(v, activation=mistaken) if v.get("activation", "gelu") in instead_of else {}


def _linear(v: Values, last: str | None) -> Values:
    """(x w_1 + b_1) w_2 + b_2, with the activation ``last`` applied at the end or none."""
    out = (v["x"] @ v["w_1"] + v["b_1"]) @ v["w_2"] + v["b_2"]
    return {"out": out if last is None else activate(last, out)}


FFN_MISTAKES = (
    Misconception(
        "relu-for-gelu",
        "This is what you get using ReLU in place of GELU.",
        lambda v: _activation_for(v, "relu", ("gelu", "gelu_tanh")),
    ),
    Misconception(
        "gelu-for-relu",
        "This is what you get using GELU in place of ReLU.",
        lambda v: _activation_for(v, "gelu", ("relu",)),
    ),
    Misconception(
        "activation-after-output",
        "This is what you get applying the activation after the second layer instead of "
        "between the two.",
        lambda v: _linear(v, v.get("activation", "gelu")),
    ),
    Misconception(
        "no-activation",
        "This is what you get leaving out the activation, so the two layers collapse into one "
        "linear map.",
        lambda v: _linear(v, None),
    ),
    Misconception(
        "no-biases",
        "This is what you get leaving out the biases b_1 and b_2.",
        lambda v: _ffn(v, b_1=np.zeros_like(v["b_1"]), b_2=np.zeros_like(v["b_2"])),
    ),
)


class _Block:
    """The block's pieces as functions of a stream: LN_1, LN_2, attention and the FFN."""

    def __init__(self, v: Values) -> None:
        self.v = v
        self.eps = v.get("eps", 1e-5)

    def norm_1(self, a: np.ndarray) -> np.ndarray:
        return layer_norm(a, self.v["ln_1_gamma"], self.v["ln_1_beta"], self.eps)

    def norm_2(self, a: np.ndarray) -> np.ndarray:
        return layer_norm(a, self.v["ln_2_gamma"], self.v["ln_2_beta"], self.eps)

    def attend(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v = self.v
        weights = (v["w_q"], v["w_k"], v["w_v"], v["w_o"])
        return multi_head_attention(
            a, *weights, v["heads"], v.get("mask"), v.get("causal") or False
        )

    def ffn(self, a: np.ndarray) -> np.ndarray:
        return _ffn(self.v, x=a)["out"]


def _post_norm(v: Values) -> Values:
    b = _Block(v)
    attended, weights = b.attend(v["x"])
    h = b.norm_1(v["x"] + attended)
    return {"out": b.norm_2(h + b.ffn(h)), "h": h, "weights": weights}


def _no_residual(v: Values) -> Values:
    b = _Block(v)
    h = b.attend(b.norm_1(v["x"]))[0]
    return {"out": b.ffn(b.norm_2(h)), "h": h}


def _residual_from_normed(v: Values) -> Values:
    b = _Block(v)
    normed = b.norm_1(v["x"])
    h = normed + b.attend(normed)[0]
    normed = b.norm_2(h)
    return {"out": normed + b.ffn(normed), "h": h}


def _ffn_from_x(v: Values) -> Values:
    b = _Block(v)
    h = v["x"] + b.attend(b.norm_1(v["x"]))[0]
    return {"out": h + b.ffn(b.norm_2(v["x"]))}


def block_mistakes(run: Run) -> tuple[Misconception, ...]:
    return (
        Misconception(
            "post-norm",
            "This is what you get normalising after each residual addition (post-norm) instead "
            "of before each sublayer (pre-norm).",
            _post_norm,
        ),
        Misconception(
            "no-residual",
            "This is what you get leaving out the residual connections (the x + and h +).",
            _no_residual,
        ),
        Misconception(
            "residual-from-normed",
            "This is what you get adding each sublayer's output to its normalised input instead "
            "of to the residual stream.",
            _residual_from_normed,
        ),
        Misconception(
            "ffn-from-x",
            "This is what you get feeding the feed-forward half from x instead of from h, the "
            "stream after attention.",
            _ffn_from_x,
        ),
        *mask_mistakes(run),
    )
