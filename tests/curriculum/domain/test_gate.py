"""The publication gate: a test per rule, every reason listed, a release only when it holds."""

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import ChapterWithdraw
from curriculum.domain.gate import ChapterPublish, PublishForbidden, PublishRefused, chapter_publish
from curriculum.domain.verification import Reverify, fingerprint_store
from curriculum.models import Chapter, Release, Solution, Verdict
from tests.conftest import problem, sketch, verify_now


def imported(document: dict, verify: bool = True) -> Chapter:
    chapter_import(document=document)
    chapter = Chapter.objects.get(code=document["code"])
    if verify:
        verify_now(chapter)
    return chapter


def reasons(chapter: Chapter) -> list[str]:
    return ChapterPublish(chapter=chapter).check()


def test_a_sketch_with_verified_answers_publishes_as_release_1(books):
    chapter = imported(sketch())
    release = chapter_publish(chapter=chapter)
    assert release.number == 1
    chapter.refresh_from_db()
    assert chapter.state == "published"
    assert release.snapshot["derived"]["owes"] == 0


def test_too_few_worked_problems_is_a_reason(books):
    chapter = imported(
        sketch(problems=[problem("p2"), problem("p3")], strands={**sketch()["strands"]})
    )
    assert "worked problems: 0 of 1 required at M1 are published and verified" in reasons(chapter)


def test_too_few_distinct_variants_is_a_reason(books):
    doc = sketch(
        maturity="M2",
        problems=[problem(f"w{i}", "worked", "same") for i in range(3)]
        + [problem(f"e{i}") for i in range(6)],
    )
    doc["strands"]["mathematics"] = {"target": 9}
    chapter = imported(doc)
    assert reasons(chapter) == [
        "variants: the verified worked problems cover 1 distinct variant, M2 requires 2"
    ]


def test_too_few_exercises_is_a_reason(books):
    chapter = imported(sketch(problems=[problem("p1", "worked"), problem("p2")]))
    assert reasons(chapter) == [
        "exercises: 1 of 2 required at M1 are published and verified",
        "strand mathematics: 2 of 3 done (derive it, then compute it)",
    ]


def test_a_strand_below_target_is_a_reason_and_surplus_elsewhere_pays_nothing(books):
    doc = sketch()
    doc["strands"]["concept"] = {
        "target": 1,
        "items": [{"title": "Draft", "body": "Not yet.", "published": False}],
    }
    doc["strands"]["basics"]["items"] *= 3
    chapter = imported(doc)
    assert reasons(chapter) == ["strand concept: 0 of 1 done (what to picture)"]


def test_a_problem_without_a_solution_is_a_reason(books):
    doc = sketch()
    doc["problems"].append({**problem("p4"), "solution": None})
    assert "problem p4: has no solution" in reasons(imported(doc))


def test_an_unpublished_solution_is_a_reason(books):
    doc = sketch()
    doc["problems"].append(problem("p4", published=False))
    assert reasons(imported(doc)) == ["problem p4: its solution is not published"]


def test_an_unverified_answer_is_a_reason(books):
    chapter = imported(sketch(), verify=False)
    found = reasons(chapter)
    assert "problem p1: its answer is not verified (pending)" in found
    assert "problem p3: its answer is not verified (pending)" in found


def test_a_wrong_answer_is_a_reason_with_its_error(books):
    doc = sketch()
    doc["problems"][2] = problem("p3", answer=[[0.6, 0.4]])
    found = reasons(imported(doc))
    assert (
        "problem p3: its answer is not verified (mismatch: max abs error 0.1, checked within "
        "rtol 1e-06, atol 1e-09 but never looser than 3 significant figures)"
    ) in found
    assert "exercises: 1 of 2 required at M1 are published and verified" in found


def test_an_edit_after_verification_makes_the_verdict_stale(books):
    chapter = imported(sketch())
    solution = Solution.objects.get(problem__chapter=chapter, problem__key="p2")
    Solution.objects.filter(pk=solution.pk).update(answer=[[0.5, 0.50000001]])
    fingerprint_store(Solution.objects.select_related("problem").get(pk=solution.pk))
    assert "problem p2: its answer is not verified (stale)" in reasons(chapter)


def test_every_reason_is_listed_at_once(books):
    doc = sketch(maturity="M2")
    doc["strands"]["mathematics"] = {"target": 9}
    doc["strands"]["theory"] = {"target": 2, "items": []}
    doc["problems"].append(problem("p4", published=False))
    found = reasons(imported(doc, verify=False))
    assert len(found) == 9
    assert found[:5] == [
        "worked problems: 0 of 3 required at M2 are published and verified",
        "variants: the verified worked problems cover 0 distinct variants, M2 requires 2",
        "exercises: 0 of 6 required at M2 are published and verified",
        "strand theory: 0 of 2 done (why it works, and when it does not)",
        "strand mathematics: 0 of 9 done (derive it, then compute it)",
    ]


def test_a_refused_publish_makes_no_release_and_keeps_the_state(books):
    chapter = imported(sketch(), verify=False)
    with pytest.raises(PublishRefused) as refusal:
        chapter_publish(chapter=chapter)
    assert len(refusal.value.reasons) == 7
    assert not Release.objects.exists()
    chapter.refresh_from_db()
    assert chapter.state == "in_progress"


def test_releases_are_numbered_and_keep_what_was_released(books):
    chapter = imported(sketch())
    first = chapter_publish(chapter=chapter)
    doc = sketch(title="A Sketch, Revised")
    doc["state"] = "published"
    imported(doc)
    second = chapter_publish(chapter=chapter)
    assert (first.number, second.number) == (1, 2)
    first.refresh_from_db()
    assert first.snapshot["title"] == "A Sketch"
    assert second.snapshot["title"] == "A Sketch, Revised"


def test_a_release_cannot_be_changed(books):
    release = chapter_publish(chapter=imported(sketch()))
    release.snapshot = {}
    with pytest.raises(ValueError, match="immutable"):
        release.save()


def test_an_author_cannot_publish_and_an_editor_can(books, alice, erin):
    chapter = imported(sketch())
    assert ChapterPublish(chapter=chapter, user=alice).check()[0] == "only Editors publish chapters"
    with pytest.raises(PublishForbidden):
        ChapterPublish(chapter=chapter, user=alice).execute()
    release = ChapterPublish(chapter=chapter, user=erin).execute().release
    assert (release.created_by, release.made_by) == (erin, "erin")


def test_publishing_an_unchanged_chapter_makes_no_release_and_says_so(books, erin):
    """The tester's two publishes 8 s apart made release 1 and release 2 ("nothing a reader
    sees changed"): the second now makes none, and says which release stays."""
    chapter = imported(sketch())
    first = ChapterPublish(chapter=chapter, user=erin).execute()
    again = ChapterPublish(chapter=chapter, user=erin).execute()
    assert (first.made, again.made, again.release) == (True, False, first.release)
    assert again.message == (
        "II.7: nothing readers see changed since release 1; no new release was made."
    )
    assert list(Release.objects.values_list("number", flat=True)) == [1]


def test_notes_given_to_a_publish_that_makes_no_release_are_said_to_be_unrecorded(books, erin):
    chapter = imported(sketch())
    ChapterPublish(chapter=chapter, user=erin, notes="First.").execute()
    again = ChapterPublish(chapter=chapter, user=erin, notes="Typo fixed.\r\n").execute()
    assert not again.made
    assert again.message == (
        "II.7: nothing readers see changed since release 1; no new release was made. "
        "The release notes were not recorded: notes go with the release they describe."
    )
    assert list(Release.objects.values_list("notes", flat=True)) == ["First."]
    blank = ChapterPublish(chapter=chapter, user=erin, notes=" \n ").execute()
    assert blank.message.endswith("no new release was made.")


def test_a_verdict_decided_again_with_the_same_outcome_is_no_change(books):
    chapter = imported(sketch())
    released = chapter_publish(chapter=chapter).snapshot["problems"][0]["verification"]
    Reverify(code="II.7").execute()
    verify_now(chapter)  # the engine checks every answer again: verified, a new date
    decided = Verdict.objects.filter(solution__problem__chapter=chapter).first().decided_at
    assert decided.isoformat() != released["decided_at"]
    assert not ChapterPublish(chapter=chapter).execute().made
    assert Release.objects.count() == 1


def test_an_edit_after_an_unchanged_publish_makes_the_next_release(books):
    chapter = imported(sketch())
    chapter_publish(chapter=chapter)
    chapter_publish(chapter=chapter)
    imported(sketch(title="A Sketch, Revised", state="published"))
    assert chapter_publish(chapter=chapter).number == 2


def test_a_withdrawn_unchanged_chapter_is_shown_again_without_a_new_release(books):
    chapter = imported(sketch())
    chapter_publish(chapter=chapter)
    chapter.refresh_from_db()
    ChapterWithdraw(chapter=chapter).execute()
    again = ChapterPublish(chapter=chapter).execute()
    assert not again.made and "readers see release 1 again" in again.message
    chapter.refresh_from_db()
    assert chapter.state == "published" and Release.objects.count() == 1


def test_a_release_made_without_a_user_names_the_system_and_what_ran_it(books, erin):
    imported(sketch())
    call_command("publish_chapter", "II.7")
    assert Release.objects.get().made_by == "system (publish_chapter)"
    imported(sketch(title="A Sketch, Revised", state="published"))
    call_command("publish_chapter", "II.7", user="erin")
    assert Release.objects.get(number=2).made_by == "erin"


def test_publish_command_prints_the_release_number(books, capsys):
    imported(sketch())
    call_command("publish_chapter", "II.7")
    assert capsys.readouterr().out == "II.7: release 1\n"


def test_publish_command_fails_with_every_reason(seeded, capsys):
    with pytest.raises(CommandError, match="II.4 not published"):
        call_command("publish_chapter", "II.4")
    err = capsys.readouterr().err
    assert "II.4: publish refused (8 reasons):" in err
    for line in (
        "propositions[0].check: property Prop. 1: attention_cost(",
        "worked problems: 0 of 5",
        "variants: the verified worked problems cover 0",
        "exercises: 0 of 10",
        "strand basics: 2 of 11",
        "strand theory: 0 of 4",
        "strand mathematics: 0 of 15",
        "strand practice: 0 of 9",
    ):
        assert f"  - {line}" in err


def test_publish_command_says_when_nothing_changed(books, capsys):
    imported(sketch())
    call_command("publish_chapter", "II.7")
    call_command("publish_chapter", "II.7")
    assert capsys.readouterr().out == (
        "II.7: release 1\n"
        "II.7: nothing readers see changed since release 1; no new release was made.\n"
    )
    assert Release.objects.count() == 1


def test_publish_command_publishes_only_the_version_reviewed(books, capsys):
    from curriculum.domain.chapter_files import source_tag

    imported(sketch())
    reviewed = source_tag(code="II.7")
    imported(sketch(thesis="An author's late claim."), verify=False)
    with pytest.raises(CommandError, match="II.7 not published"):
        call_command("publish_chapter", "II.7", reviewed=reviewed)
    assert "  - the chapter changed since you reviewed it" in capsys.readouterr().err
    assert not Release.objects.exists()
    call_command("publish_chapter", "II.7", "--reviewed", source_tag(code="II.7").strip('"'))
    assert capsys.readouterr().out == "II.7: release 1\n"


def test_publish_command_as_an_author_is_refused(books, alice):
    imported(sketch())
    with pytest.raises(CommandError, match="only Editors publish"):
        call_command("publish_chapter", "II.7", user="alice")


def test_a_withdrawn_chapter_put_back_in_progress_is_published_again(books):
    chapter_publish(chapter=imported(sketch()))
    imported(sketch(state="draft"))
    chapter = Chapter.objects.get(code="II.7")
    chapter.state = "in_progress"
    chapter.full_clean()
    assert chapter.state == "published"


def test_the_model_refuses_published_without_a_release(books):
    chapter = imported(sketch())
    chapter.state = "published"
    with pytest.raises(ValidationError, match="only by publishing"):
        chapter.full_clean()


def test_the_model_refuses_a_number_that_disagrees_with_the_code(books):
    chapter = imported(sketch())
    chapter.number = 5
    with pytest.raises(ValidationError, match="the code II.7 says chapter 7, but number is 5"):
        chapter.full_clean()


@pytest.mark.parametrize("maturity", ["M0", "M1"])
def test_an_empty_thesis_summary_and_statement_are_each_a_reason_at_any_maturity(books, maturity):
    document = sketch(thesis="", summary=" ", problem_statement="", maturity=maturity)
    if maturity == "M0":
        document.update(problems=[], strands={**sketch()["strands"], "mathematics": {"target": 0}})
    found = reasons(imported(document))
    assert found[:3] == [
        "thesis: empty (required at every maturity)",
        "summary: empty (required at every maturity)",
        "problem statement: empty (required at every maturity)",
    ]
    with pytest.raises(PublishRefused):
        chapter_publish(chapter=Chapter.objects.get(code="II.7"))
