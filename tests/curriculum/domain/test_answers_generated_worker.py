"""Generated problems as the worker decides them, at instance 0 (committed rows, apart from
test_answers_generated.py's module world)."""

import numpy as np
import pytest

from tests.curriculum.conftest import decided, import_chapter
from tests.curriculum.domain.test_answers_generated import (
    generated_problem,
    six_figures,
    softmax_of,
)


@pytest.mark.worker
def test_the_worker_decides_generated_problems_at_instance_zero(worker, books_committed):
    ids = import_chapter(
        [
            generated_problem(six_figures(softmax_of(0))) | {"key": "right"},
            generated_problem(six_figures(softmax_of(2))) | {"key": "other-instance"},
        ]
    )
    verdicts = decided(ids)
    assert {key: v.status for key, v in verdicts.items()} == {
        "right": "verified",
        "other-instance": "mismatch",
    }
    held = verdicts["other-instance"].engine_value  # in extended precision, rounded
    assert np.allclose(held, softmax_of(0), rtol=1e-15, atol=0)
