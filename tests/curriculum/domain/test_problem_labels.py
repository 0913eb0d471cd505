"""A problem is called by its kind and its place among its kind, whatever its key or variant."""

from curriculum.domain.problem_labels import problem_labels


def test_worked_problems_and_exercises_are_numbered_apart_in_page_order():
    problems = [
        {"key": "p9", "kind": "exercise"},
        {"key": "intro", "kind": "worked"},
        {"key": "p2", "kind": "exercise"},
        {"key": "p1", "kind": "worked"},
    ]
    assert problem_labels(problems) == {
        "p9": "Exercise 1",
        "intro": "Worked problem 1",
        "p2": "Exercise 2",
        "p1": "Worked problem 2",
    }
