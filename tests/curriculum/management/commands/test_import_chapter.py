"""import_chapter --dry-run asks the engine: the rows verify_chapter prints, non-zero on a wrong
answer, and nothing written. Import warns of tolerances tighter than the answer is written."""

import pytest
import yaml
from django.core.management import CommandError, call_command

from curriculum.models import Chapter, Verdict
from tests.conftest import problem, sketch

pytestmark = pytest.mark.django_db


def write(tmp_path, document):
    path = tmp_path / "chapter.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return str(path)


def test_a_right_chapter_prints_a_verified_row_per_problem(books, tmp_path, capsys):
    call_command("import_chapter", write(tmp_path, sketch()), "--dry-run")
    out = capsys.readouterr().out
    assert "would import II.7" in out
    assert [line.split()[:2] for line in out.splitlines()[1:]] == [
        ["p1", "verified"],
        ["p2", "verified"],
        ["p3", "verified"],
    ]
    assert not Chapter.objects.filter(code="II.7").exists()
    assert not Verdict.objects.filter(solution__problem__chapter__code="II.7").exists()


def test_a_wrong_answer_fails_the_dry_run_with_the_engines_value(books, tmp_path, capsys):
    document = sketch(problems=[problem("p1", "worked"), problem("p2", answer=[[0.4, 0.6]])])
    with pytest.raises(CommandError, match="1 answers not verified$"):
        call_command("import_chapter", write(tmp_path, document), "--dry-run")
    out = capsys.readouterr().out
    assert "p2            mismatch   max abs error 0.1  engine value [[0.5, 0.5]]" in out
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_wrong_shape_names_both_shapes(books, tmp_path, capsys):
    document = sketch(problems=[problem("p1", "worked", answer=[0.5, 0.5])])
    with pytest.raises(CommandError):
        call_command("import_chapter", write(tmp_path, document), "--dry-run")
    assert "the answer is a vector of 2 but the engine's value is a 1x2 array" in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ([[0.2689, 0.7311]], "verified"),  # right to 4 figures
        ([[0.26894, 0.73106]], "verified"),  # right to 5
        ([[0.268941, 0.731059]], "verified"),  # right to 6
        ([[0.2691, 0.7309]], "mismatch"),  # wrong in the 4th figure
        ([[0.26895, 0.73105]], "mismatch"),  # wrong in the 5th
    ],
)
def test_without_a_tolerance_an_answer_is_checked_at_the_figures_it_is_written_to(
    books, tmp_path, capsys, answer, verdict
):
    written = problem("p1", "worked", scores=[[0.0, 1.0]], answer=answer)
    del written["tolerance"]
    path = write(tmp_path, sketch(problems=[written]))
    if verdict == "verified":
        call_command("import_chapter", path, "--dry-run")
    else:
        with pytest.raises(CommandError, match="1 answers not verified$"):
            call_command("import_chapter", path, "--dry-run")
    assert capsys.readouterr().out.splitlines()[1].split()[:2] == ["p1", verdict]


def test_an_answer_written_to_four_figures_under_six_is_warned_about(books, tmp_path, capsys):
    four = problem("p1", "worked", scores=[[0.0, 1.0]], answer=[[0.2689, 0.7311]])
    four["tolerance"] = {"digits": 6}
    call_command("import_chapter", write(tmp_path, sketch(problems=[four])))
    err = capsys.readouterr().err
    assert (
        "warning: problems[0].solution.answer: the answer is written to 4 significant "
        "figures but the tolerance asks for 6"
    ) in err


def test_an_answer_copied_from_the_engine_is_warned_about(books, tmp_path, capsys):
    copied = problem(
        "p1", "worked", scores=[[0.0, 1.0]], answer=[[0.2689414213699951, 0.7310585786300049]]
    )
    call_command("import_chapter", write(tmp_path, sketch(problems=[copied])))
    assert "carries 16 significant figures" in capsys.readouterr().err


def test_a_problem_without_a_solution_fails_the_dry_run_as_verify_chapter_fails_it(
    books, tmp_path, capsys
):
    """One definition of an answer that counts, for both reports."""
    unsolved = problem("p2")
    del unsolved["solution"]
    document = sketch(
        problems=[problem("p1", "worked"), unsolved],
        maturity="M0",
        strands=sketch()["strands"] | {"mathematics": {"target": 0}},
    )
    with pytest.raises(CommandError, match="1 answers not verified$"):
        call_command("import_chapter", write(tmp_path, document), "--dry-run")
    assert "p2            unsolved" in capsys.readouterr().out


def test_files_are_imported_after_the_chapters_they_name_whatever_order_they_are_given(
    books, tmp_path, capsys
):
    """A shell lists II.10.yaml before II.3.yaml: II.10, naming II.3, was refused for a chapter
    the same command was about to make."""
    paths = []
    for code, thesis in [("II.10", "As @II.3 shows, weights sum to 1."), ("II.3", "Weights.")]:
        path = tmp_path / f"{code}.yaml"
        path.write_text(yaml.safe_dump(sketch(code) | {"thesis": thesis}, sort_keys=False))
        paths.append(str(path))
    call_command("import_chapter", *paths)
    out = capsys.readouterr().out
    assert out.index("created II.3") < out.index("created II.10")
    assert set(Chapter.objects.values_list("code", flat=True)) >= {"II.3", "II.10"}


def test_files_naming_each_other_are_refused_each_by_the_reference_it_cannot_resolve(
    books, tmp_path, capsys
):
    """No order makes either first: each is refused with its path, and nothing is written."""
    paths = []
    for code, other in [("II.5", "II.6"), ("II.6", "II.5")]:
        path = tmp_path / f"{code}.yaml"
        thesis = f"Compare @{other}."
        path.write_text(yaml.safe_dump(sketch(code) | {"thesis": thesis}, sort_keys=False))
        paths.append(str(path))
    with pytest.raises(CommandError, match="2 of 2 files refused"):
        call_command("import_chapter", *paths)
    err = capsys.readouterr().err
    assert err.index("II.5.yaml: refused") < err.index("II.6.yaml: refused")
    assert not Chapter.objects.filter(code__in=["II.5", "II.6"]).exists()
