"""Chapters go through `import_chapter` and `verify_chapter --wait` as a user runs them.

Each command is a subprocess on the test database and this run's broker; the session's real
worker decides. Expected values come from the loop reference in tests/attention and from
hand counts, never from the engine under test.
"""

import json
import math
import re

import numpy as np
import pytest
import yaml

from curriculum.models import Chapter, Problem
from tests.attention.reference import reference_mha
from tests.curriculum.conftest import run_manage

pytestmark = pytest.mark.worker

TOLERANCE = "within rtol=1e-06, atol=1e-09"


def row(
    key: str, state: str, error: str | None = None, value: object = None, message: str = ""
) -> str:
    """One line of verify_chapter's report: key, verdict, max error, engine value, message."""
    parts = [f"{key:<12}", f"{state:<9}"]
    if error is not None:
        parts.append(f"max abs error {error}")
    if value is not None:
        parts.append(f"engine value {json.dumps(value, sort_keys=True)}")
    if message:
        parts.append(message)
    return "  ".join(parts).rstrip()


def chapter(code: str, problems: list[dict]) -> dict:
    return {
        "code": code,
        "book": "II",
        "number": int(code.split(".")[1]),
        "title": f"Unseen {code}",
        "maturity": "M0",
        "state": "draft",
        "problems": problems,
    }


def problem(key: str, operation: str, inputs: dict, ask: dict, answer) -> dict:
    return {
        "key": key,
        "kind": "exercise",
        "variant": key.split("-")[0],
        "statement": "Compute it.",
        "operation": operation,
        "inputs": inputs,
        "ask": ask,
        "tolerance": {"rtol": 1e-6, "atol": 1e-9},
        "solution": {"steps": "By hand.", "answer": answer, "published": True},
    }


# ------------------------------------------------------------------ II.21: batch, masks, causal

RNG = np.random.default_rng(21)
X = RNG.integers(-2, 3, size=(2, 4, 4))
W = {name: RNG.integers(-1, 2, size=(4, 4)) for name in ("w_q", "w_k", "w_v", "w_o")}
MASK = RNG.random((2, 4, 4)) < 0.6
MASK[:, np.arange(4), np.arange(4)] = True  # every query may see itself, so no row is empty
MHA = {"x": X.tolist(), **{k: w.tolist() for k, w in W.items()}, "heads": 2, "mask": MASK.tolist()}
OUT, WEIGHTS = reference_mha(X, *W.values(), 2, mask=MASK)
CAUSAL_OUT, _ = reference_mha(X, *W.values(), 2, mask=MASK, causal=True)
NEAR_COL = int(np.argmax(np.abs(CAUSAL_OUT[0, 1])))  # a value well away from zero


def mha_chapter() -> dict:
    causal = MHA | {"causal": True}
    return chapter(
        "II.21",
        [
            problem("mha-out", "multi_head_attention", MHA, {"output": "out"}, OUT.tolist()),
            problem(
                "mha-rel",
                "multi_head_attention",
                causal,
                {"output": "out", "batch": 1},
                (CAUSAL_OUT[1] * (1 + 1e-4)).tolist(),
            ),
            problem(
                "mha-far",
                "multi_head_attention",
                MHA,
                {"output": "weights", "batch": 0, "head": 1, "row": 3},
                [0.25] * 4,
            ),
            problem(
                "mha-near",
                "multi_head_attention",
                causal,
                {"output": "out", "batch": 0, "row": 1, "col": NEAR_COL},
                float(CAUSAL_OUT[0, 1, NEAR_COL]) + 1e-9,
            ),
        ],
    )


ROW = re.compile(
    r"^(?P<key>\S+) +(?P<state>\S+) *(?:max abs error (?P<error>\S+))?"
    r"(?:  engine value (?P<value>.+?))?(?:  (?P<message>\S.*))?$"
)


def parsed(line: str) -> dict:
    match = ROW.match(line)
    assert match, line
    found = match.groupdict()
    assert line == row(
        found["key"],
        found["state"],
        found["error"],
        None if found["value"] is None else json.loads(found["value"]),
        found["message"] or "",
    ), "the row is not in the report's format"
    return found


# ------------------------------------------------------- II.22: one head's slices, cost terms

HEAD = {  # w_q = 0: every score is 0, so weights are exact halves and quarters
    "x": [[1, 2, 0, 1], [0, 1, 2, 2], [2, 0, 1, 1], [1, 1, 1, 0]],
    "w_q": [[0] * 4] * 4,
    "w_k": [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
    "w_v": [[1, 0, 2, 0], [0, 1, 0, 1], [1, 0, 1, 1], [0, 2, 0, 1]],
    "heads": 2,
    "head": 1,
    "mask": [
        [True, False, False, False],
        [True, True, False, False],
        [True, True, True, True],
        [False, True, False, True],
    ],
}
# head 1 is columns 2..3: v = x @ w_v[:, 2:4] by hand
HEAD_V = [[2, 3], [2, 5], [5, 2], [3, 2]]
HEAD_OUT_ROW_2 = [(2 + 2 + 5 + 3) / 4, (3 + 5 + 2 + 2) / 4]  # row 2 sees all four: [3.0, 3.0]
# T=3, d=6, h=3, B=2 counted by hand: projections 2*B*T*d*d, scores and weighted sum
# 2*B*T*T*d, scaling B*h*T*T, softmax B*h*T*(5T-2)
TERMS = {
    "q_projection": 432,
    "k_projection": 432,
    "v_projection": 432,
    "output_projection": 432,
    "scores": 216,
    "weighted_sum": 216,
    "scaling": 54,
    "softmax": 234,
}
FLOPS = 2448
COST = {"seq_len": 3, "width": 6, "heads": 3, "batch": 2}


def head_and_cost_chapter() -> dict:
    return chapter(
        "II.22",
        [
            problem("head-v", "attention_head", HEAD, {"output": "v"}, HEAD_V),
            problem("head-far", "attention_head", HEAD, {"output": "out", "row": 2}, [30, 3]),
            problem(
                "head-rel",
                "attention_head",
                HEAD,
                {"output": "weights", "row": 1},
                [0.5 * (1 + 1e-4), 0.5, 0, 0],
            ),
            problem("cost-terms", "attention_cost", COST, {"output": "terms"}, TERMS),
            problem(
                "cost-rel",
                "attention_cost",
                COST,
                {"output": "terms"},
                TERMS | {"scaling": 54 * (1 + 1e-4)},
            ),
            problem(
                "cost-far",
                "attention_cost",
                COST,
                {"output": "terms"},
                TERMS | {"softmax": 2 * 3 * 3 * 5 * 3},
            ),  # 5T per row: the -2 forgotten
            problem(
                "cost-keys",
                "attention_cost",
                COST,
                {"output": "terms"},
                {k: v for k, v in TERMS.items() if k != "weighted_sum"},
            ),
            problem("cost-near", "attention_cost", COST, {"output": "flops"}, FLOPS + 1e-9),
        ],
    )


# ------------------------------------------------------------------- II.23: softmax, all right

SOFTMAX = {
    "scores": [[0, 0, 5], [1000, 1000, 0]],
    # e^-1000 beside 1: below float64's normal range, refused (engine 1.4.4); masked, exactly 0
    "mask": [[True, True, False], [True, True, False]],
}


def softmax_chapter() -> dict:
    return chapter(
        "II.23",
        [
            problem(
                "soft-out", "softmax", SOFTMAX, {"output": "out"}, [[0.5, 0.5, 0], [0.5, 0.5, 0]]
            ),
            problem(
                "soft-near", "softmax", SOFTMAX, {"output": "out", "row": 1, "col": 0}, 0.5 + 1e-9
            ),
        ],
    )


@pytest.fixture
def imported(worker, books_committed, tmp_path):
    documents = [mha_chapter(), head_and_cost_chapter(), softmax_chapter()]
    files = []
    for document in documents:
        files.append(tmp_path / f"{document['code']}.yaml")
        files[-1].write_text(yaml.safe_dump(document))
    result = run_manage("import_chapter", *map(str, files))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"{tmp_path}/II.21.yaml: created II.21, 4 sent to the verifier",
        f"{tmp_path}/II.22.yaml: created II.22, 8 sent to the verifier",
        f"{tmp_path}/II.23.yaml: created II.23, 2 sent to the verifier",
    ]


def verify(code: str):
    result = run_manage("verify_chapter", code, "--wait", "60")
    lines = result.stdout.splitlines()
    assert lines[0] == f"{code}: {len(lines) - 1} solutions sent to the verifier"
    return result, lines[1:]


def test_batched_masked_attention_is_verified_only_when_right(imported):
    result, lines = verify("II.21")

    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "CommandError: 2 of 4 not verified: mha-rel, mha-far"
    )
    rows = [parsed(line) for line in lines]
    assert [(r["key"], r["state"]) for r in rows] == [
        ("mha-out", "verified"),
        ("mha-rel", "mismatch"),
        ("mha-far", "mismatch"),
        ("mha-near", "verified"),
    ]
    out, rel, far, near = rows
    assert float(out["error"]) < 1e-12 and out["value"] is None
    rel_error = float(np.max(np.abs(CAUSAL_OUT[1]))) * 1e-4
    assert rel["error"] == f"{rel_error:.3g}"
    assert np.allclose(json.loads(rel["value"]), CAUSAL_OUT[1], rtol=1e-12, atol=1e-12)
    first = tuple(int(i) for i in np.argwhere(CAUSAL_OUT[1] != 0)[0])  # every nonzero is off
    shown = f"{CAUSAL_OUT[1][first] * (1 + 1e-4):.6g} is not {CAUSAL_OUT[1][first]:.6g}"
    assert rel["message"].startswith(f"[{first[0]}, {first[1]}]: {shown} {TOLERANCE} (and ")
    far_error = float(np.max(np.abs(WEIGHTS[0, 1, 3] - 0.25)))
    assert far["error"] == f"{far_error:.3g}"
    assert np.allclose(json.loads(far["value"]), WEIGHTS[0, 1, 3], rtol=1e-12, atol=1e-12)
    weights = WEIGHTS[0, 1, 3]
    i = int(np.argwhere(np.abs(weights - 0.25) > 1e-9)[0][0])  # the first entry refused
    said = f" {TOLERANCE}" if weights[i] else ": an entry that is exactly 0 must be answered 0"
    assert far["message"].startswith(f"[{i}]: 0.25 is not {weights[i]:.6g}{said}")
    assert float(near["error"]) == pytest.approx(1e-9, rel=1e-3) and near["value"] is None


def test_head_slices_and_cost_terms_print_exact_rows(imported):
    result, lines = verify("II.22")

    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "CommandError: 6 of 8 not verified: head-far, head-rel, cost-rel, cost-far, cost-keys, "
        "cost-near"
    )
    near_error = f"{FLOPS + 1e-9 - FLOPS:.3g}"
    assert lines == [
        row("head-v", "verified", "0"),
        row("head-far", "mismatch", "27", HEAD_OUT_ROW_2, f"[0]: 30 is not 3 {TOLERANCE}"),
        row(
            "head-rel",
            "mismatch",
            "5e-05",
            [0.5, 0.5, 0.0, 0.0],
            f"[0]: 0.50005 is not 0.5 {TOLERANCE}",
        ),
        row("cost-terms", "verified", "0"),
        row(
            "cost-rel",
            "mismatch",
            "0.0054",
            TERMS,
            "scaling: 54.0054 is not 54: a count is compared exactly",
        ),
        row(
            "cost-far",
            "mismatch",
            "36",
            TERMS,
            "softmax: 270 is not 234: a count is compared exactly",
        ),
        row(
            "cost-keys",
            "mismatch",
            None,
            TERMS,
            "the answer leaves out values the engine gives: weighted_sum",
        ),
        row(
            "cost-near",
            "mismatch",
            near_error,
            FLOPS,  # a count is exact, not nearly
            "2448.000000001 is not 2448: a count is compared exactly",
        ),
    ]


def test_a_chapter_whose_answers_are_all_right_exits_zero(imported):
    result, lines = verify("II.23")

    assert result.returncode == 0, result.stderr
    assert lines == [
        row("soft-out", "verified", "0"),
        row("soft-near", "verified", f"{0.5 + 1e-9 - 0.5:.3g}"),
    ]


MALFORMED = """\
code: II.24
book: II
number: 24
title: Malformed
maturity: M0
state: draft
problems:
  - key: shape
    kind: exercise
    variant: mha
    statement: Compute it.
    operation: multi_head_attention
    inputs: {x: [[1, 0, 1, 0], [0, 1, 0, 1]], w_q: [[1, 0], [0, 1]], w_k: $EYE, w_v: $EYE,
             w_o: $EYE, heads: 2}
    ask: {output: out}
    solution: {answer: [[0, 0, 0, 0], [0, 0, 0, 0]]}
  - key: text
    kind: exercise
    variant: mha
    statement: Compute it.
    operation: multi_head_attention
    inputs: {x: [[1, 0, 1, 0], [0, 1, 0, 1]], w_q: $EYE, w_k: identity, w_v: $EYE,
             w_o: $EYE, heads: 2}
    ask: {output: out}
    solution: {answer: [[0, 0, 0, 0], [0, 0, 0, 0]]}
  - key: nan
    kind: exercise
    variant: softmax
    statement: Compute it.
    operation: softmax
    inputs: {scores: [[1.0, .nan]]}
    ask: {output: out}
    solution: {answer: [[.nan, 0.5]]}
  - key: heads
    kind: exercise
    variant: mha
    statement: Compute it.
    operation: multi_head_attention
    inputs: {x: [[1, 0, 1, 0], [0, 1, 0, 1]], w_q: $EYE, w_k: $EYE, w_v: $EYE, w_o: $EYE,
             heads: 3}
    ask: {output: out}
    solution: {answer: [[0, 0, 0, 0], [0, 0, 0, 0]]}
  - key: long
    kind: exercise
    variant: head
    statement: Compute it.
    operation: attention_head
    inputs: {x: $LONG, w_q: [[1]], w_k: [[1]], w_v: [[1]], heads: 1, head: 0}
    ask: {output: out, row: 0}
    solution: {answer: [0]}
  - key: ask
    kind: exercise
    variant: mha
    statement: Compute it.
    operation: multi_head_attention
    inputs: {x: [[1, 0, 1, 0], [0, 1, 0, 1]], w_q: $EYE, w_k: $EYE, w_v: $EYE, w_o: $EYE,
             heads: 2}
    ask: {output: weights, head: 2, row: 5, col: a}
    solution: {answer: 0}
  - key: cost
    kind: exercise
    variant: cost
    statement: Count it.
    operation: attention_cost
    inputs: {seq_len: 4, width: 8, heads: 2}
    ask: {output: flop}
    solution: {answer: {flops: 2736}}
""".replace("$EYE", "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]").replace(
    "$LONG", json.dumps([[0]] * 4097)
)

MALFORMED_ERRORS = [
    "problems[0].inputs.w_q: expected 4x4 matrix, got 2x2",
    "problems[1].inputs.w_k: must contain only numbers, found str 'identity'",
    "problems[2].inputs.scores: must be finite (no NaN or infinity)",
    "problems[2].solution.answer: must be finite",
    "problems[3].inputs.heads: width 4 is not divisible by 3 heads",
    "problems[4].inputs.x: sequence length 4097 exceeds the limit of 4096",
    "problems[5].ask.head: index 2 is out of range: 'weights' has 2 along head (0..1)",
    "problems[5].ask.row: index 5 is out of range: 'weights' has 2 along row (0..1)",
    "problems[5].ask.col: must be an integer index, got str 'a'",
    "problems[6].ask.output: unknown output 'flop'; expected one of flops, params, terms, "
    "q_projection, k_projection, v_projection, output_projection, scores, scaling, softmax, "
    "weighted_sum, output_projection_backward, weighted_sum_backward, softmax_backward, "
    "scaling_backward, scores_backward, q_projection_backward, k_projection_backward, "
    "v_projection_backward",
]


def test_malformed_problems_are_refused_with_every_error_and_nothing_is_written(
    worker, books_committed, tmp_path
):
    file = tmp_path / "II.24.yaml"
    file.write_text(MALFORMED)
    problems_before = Problem.objects.count()

    result = run_manage("import_chapter", str(file))

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{file}: refused, nothing written ({len(MALFORMED_ERRORS)} errors):",
        *(f"  {error}" for error in MALFORMED_ERRORS),
        "CommandError: 1 of 1 files refused",
    ]
    assert not Chapter.objects.filter(code="II.24").exists()
    assert Problem.objects.count() == problems_before
    assert math.isnan(yaml.safe_load(MALFORMED)["problems"][2]["inputs"]["scores"][0][1])


def test_a_problem_without_a_solution_gets_a_row_and_fails_the_check(
    worker, books_committed, tmp_path
):
    unsolved = {**problem("soft-open", "softmax", SOFTMAX, {"output": "out"}, 0)}
    del unsolved["solution"]
    document = chapter(
        "II.25",
        [
            problem(
                "soft-out", "softmax", SOFTMAX, {"output": "out"}, [[0.5, 0.5, 0], [0.5, 0.5, 0]]
            ),
            unsolved,
        ],
    )
    path = tmp_path / "II.25.yaml"
    path.write_text(yaml.safe_dump(document))
    assert run_manage("import_chapter", str(path)).returncode == 0
    result = run_manage("verify_chapter", "II.25", "--wait", "60")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "II.25: 1 solution sent to the verifier",
        row("soft-out", "verified", "0"),
        row("soft-open", "unsolved", message="it has no solution"),
    ]
    assert result.stderr.strip().splitlines()[-1] == "CommandError: 1 of 2 not verified: soft-open"
