"""The fingerprint stored on each solution is what its content fingerprints to, whoever wrote
it, and "counted" as the database says it is the rule as one solution reads."""

from curriculum.domain.editing import ProblemSave
from curriculum.domain.verification import counted, fingerprint, verdicts_decide
from curriculum.models import Solution, Verdict
from tests.curriculum.conftest import import_chapter, uniform_problem

RIGHT = [[2, 3], [2, 3]]


def stored_equals_computed() -> bool:
    solutions = Solution.objects.select_related("problem")
    return all(s.fingerprint == fingerprint(s.problem, s) for s in solutions)


def counted_in_python(solution: Solution) -> bool:
    verdict = getattr(solution, "verdict", None)
    return (
        solution.published
        and verdict is not None
        and verdict.status == "verified"
        and verdict.fingerprint == fingerprint(solution.problem, solution)
    )


def decide_all() -> None:
    verdicts_decide(checks=[(v.solution_id, None) for v in Verdict.objects.all()])


def test_every_writer_stores_the_fingerprint_of_what_it_wrote(books):
    [sid] = import_chapter([uniform_problem("p1", RIGHT)])
    assert stored_equals_computed()
    import_chapter([uniform_problem("p1", [[2, 3], [2, 4]], tolerance={"digits": 4})])
    assert stored_equals_computed()
    solution = Solution.objects.select_related("problem").get(pk=sid)
    solution.problem.inputs = {**solution.problem.inputs, "v": [[1, 2], [3, 5]]}
    ProblemSave(problem=solution.problem).execute()  # the problem alone
    assert stored_equals_computed()
    solution.answer = [[2, 3.5], [2, 3.5]]
    ProblemSave(problem=solution.problem, solution=solution).execute()
    assert stored_equals_computed()


def test_counted_in_the_database_is_counted_for_one_solution(books):
    ids = import_chapter(
        [
            uniform_problem("right", RIGHT),
            uniform_problem("wrong", [[2, 3], [2, 30]]),
            uniform_problem(
                "hidden", RIGHT, solution={"steps": "", "answer": RIGHT, "published": False}
            ),
            uniform_problem("edited", RIGHT),
            uniform_problem("reworded", RIGHT),
        ]
    )
    decide_all()
    edited = Solution.objects.select_related("problem").get(problem__key="edited")
    edited.answer = [[2, 3], [2, 3.5]]
    ProblemSave(
        problem=edited.problem, solution=edited
    ).execute()  # checked: the verdict is for the old
    reworded = Solution.objects.select_related("problem").get(problem__key="reworded")
    reworded.problem.statement = "Compute the output, row by row."
    reworded.steps = "Each weight is a half."
    ProblemSave(
        problem=reworded.problem, solution=reworded
    ).execute()  # not checked: it still counts

    solutions = Solution.objects.filter(pk__in=ids).select_related("problem", "verdict")
    by_database = dict(solutions.annotate(counted=counted()).values_list("problem__key", "counted"))
    assert by_database == {s.problem.key: counted_in_python(s) for s in solutions}
    assert by_database == {
        "right": True,
        "wrong": False,
        "hidden": False,
        "edited": False,
        "reworded": True,
    }
