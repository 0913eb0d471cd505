"""The engine's estimate of an evaluation's work, from shapes alone, and the CPU budget an engine
run checks itself."""

import math
import time

import pytest

import attention
from attention import OPERATIONS, EngineOverTime, cpu_budget, evaluation_work
from attention.work import ESTIMATES


def generated(*shape: int, seed: int = 1) -> dict:
    return {"generate": "normal", "shape": list(shape), "seed": seed}


def mha(seq: int, width: int, heads: int, **more) -> dict:
    weight = generated(width, width, seed=2)
    return {
        "x": generated(seq, width),
        "w_q": weight,
        "w_k": weight,
        "w_v": weight,
        "w_o": weight,
        "heads": heads,
        **more,
    }


def test_every_operation_has_an_estimate_and_its_example_a_positive_one():
    assert set(ESTIMATES) == set(OPERATIONS)
    for name, operation in OPERATIONS.items():
        work = evaluation_work(name, operation.example.inputs)
        assert isinstance(work, int) and work > 0, name


def test_written_numbers_and_a_generator_of_the_same_shape_cost_the_same():
    written = attention.expand_inputs(mha(64, 16, 4))
    assert evaluation_work("multi_head_attention", written) == evaluation_work(
        "multi_head_attention", mha(64, 16, 4)
    )


def test_the_estimate_reads_shapes_and_never_draws_the_numbers():
    started = time.process_time()
    work = evaluation_work(
        "multi_head_attention_backward", mha(4096, 16, 4, grad_out=generated(4096, 16, seed=9))
    )
    assert time.process_time() - started < 0.01
    assert work > 10**10


def test_many_small_heads_on_a_long_sequence_weigh_their_per_score_work():
    """Splitting the width into heads keeps the matmul flops (attention_cost) but multiplies
    the passes over the scores, which is what such a problem spends its time on."""
    one, sixteen = (evaluation_work("multi_head_attention", mha(2048, 16, h)) for h in (1, 16))
    flops = [attention.attention_cost(2048, 16, h).flops for h in (1, 16)]
    assert sixteen / one > 2 * flops[1] / flops[0]


def test_a_causal_mask_and_a_backward_pass_add_work():
    qkv = {name: generated(512, 8) for name in ("q", "k", "v")}
    plain = evaluation_work("scaled_dot_product_attention", qkv)
    causal = evaluation_work("scaled_dot_product_attention", qkv | {"causal": True})
    backward = evaluation_work(
        "scaled_dot_product_attention_backward", qkv | {"grad_out": generated(512, 8)}
    )
    assert plain < causal and 1.5 * plain < backward


def test_unknown_operations_and_unreadable_inputs_are_left_to_check():
    assert evaluation_work("nonsense", {}) is None
    assert evaluation_work("multi_head_attention", {"x": generated(4, 4), "heads": 0}) is None
    assert evaluation_work("softmax", ["not", "a", "mapping"]) is None


@pytest.mark.parametrize(
    ("operation", "inputs"),
    [
        ("multi_head_attention", mha(1024, 32, 8)),
        (
            "scaled_dot_product_attention",
            {"q": generated(1024, 64), "k": generated(1024, 64), "v": generated(1024, 64)},
        ),
        (
            "feed_forward",
            {
                "x": [[0.5] * 16] * 512,
                "w_1": [[0.01] * 512] * 16,
                "b_1": [0.0] * 512,
                "w_2": [[0.01] * 16] * 512,
                "b_2": [0.0] * 16,
            },
        ),
    ],
)
def test_the_estimate_bounds_the_time_an_evaluation_takes(operation, inputs):
    """Under about 1 ns of one core per unit wherever measured (tests/attention, attention/work.py);
    5 ns leaves room for a slow or shared machine."""
    started = time.process_time()
    attention.evaluate(operation, inputs, {"output": "out"})
    spent = time.process_time() - started
    assert spent < 5e-9 * evaluation_work(operation, inputs) + 0.05


def busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_run_past_its_cpu_budget_is_stopped_inside_it():
    started = time.process_time()
    with pytest.raises(EngineOverTime, match="more than 0.2 s of CPU time"), cpu_budget(0.2):
        busy(5)
    assert time.process_time() - started < 1


def test_time_spent_waiting_is_not_charged_to_the_budget():
    with cpu_budget(0.2):
        time.sleep(0.5)  # a loaded machine, a queue: the clock runs, the CPU time does not
        busy(0.05)


def test_a_run_within_its_budget_leaves_no_timer_behind():
    with cpu_budget(0.3):
        busy(0.01)
    busy(0.5)  # would raise if the timer were still armed


LARGE_INPUTS = [
    ("multi_head_attention", mha(1024, 32, 8)),
    ("sinusoidal_positions", {"seq_len": 4096, "width": 4096}),
    ("softmax", {"scores": generated(16, 4096)}),
    (
        "scaled_dot_product_attention",
        {"q": generated(2048, 2), "k": generated(2048, 2), "v": generated(2048, 2)},
    ),
]


@pytest.mark.parametrize(
    ("operation", "inputs"),
    [(name, operation.example.inputs) for name, operation in OPERATIONS.items()] + LARGE_INPUTS,
)
def test_no_evaluation_makes_more_numbers_than_its_work_allows(operation, inputs):
    """`numbers_at_most`: a caller bounding what an evaluation makes reads no shapes below it
    (curriculum/domain/work_budget.py), so no operation may make more for its work."""
    axes = attention.output_axes(operation, inputs)
    made = sum(math.prod(n for _, n in shape) for shape in axes.values() if shape is not None)
    assert made <= attention.numbers_at_most(evaluation_work(operation, inputs)), operation
