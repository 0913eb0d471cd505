"""A revert imports the revision's document through the one service: the text comes back, the
verdicts follow (pending, then verified again), the gate reads it, and it is a new revision."""

import json

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.chapter_history import chapter_history
from curriculum.domain.gate import publish_reasons
from curriculum.domain.revision_revert import chapter_revert
from curriculum.domain.roles import Forbidden
from curriculum.domain.selectors import chapter_with_parts
from curriculum.domain.verification import with_verdict_state
from curriculum.domain.working_copy import SourceChanged, chapter_source, source_tag
from curriculum.models import Chapter, ChapterRevision, Problem
from tests.conftest import problem, sketch, verify_now


def state_of(key: str) -> str:
    problems = with_verdict_state(Problem.objects.filter(chapter__code="II.7", key=key))
    return problems.get().verdict_state


def edited_wrong(committed) -> ChapterRevision:
    """II.7 verified, then p3's answer edited wrong; returns the verified revision."""
    committed(lambda: chapter_import(document=sketch()))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    good = chapter_history(chapter=chapter)[0]
    wrong = sketch()
    wrong["problems"][2]["solution"]["answer"] = [[0.9, 0.1]]
    committed(lambda: chapter_import(document=wrong))
    verify_now(chapter)
    assert state_of("p3") == "mismatch"
    return ChapterRevision.objects.get(pk=good.pk)


def test_revert_restores_the_text_and_the_verdicts_follow(books, alice, committed):
    good = edited_wrong(committed)
    committed(lambda: chapter_revert(revision=good, user=alice))
    assert chapter_source(code="II.7")["problems"][2]["solution"]["answer"] == [[0.5, 0.5]]
    assert state_of("p3") == "pending"
    assert any("p3" in reason for reason in publish_reasons(chapter_with_parts(code="II.7")))
    verify_now(Chapter.objects.get(code="II.7"))
    assert state_of("p3") == "verified"
    assert publish_reasons(chapter_with_parts(code="II.7")) == []
    newest = chapter_history(chapter=good.chapter)[0]
    assert (newest.number, newest.via, newest.note, newest.made_by) == (
        3,
        "revert",
        "reverted to revision 1",
        "alice",
    )
    assert newest.tag == good.tag


def test_revert_keeps_the_chapters_state(books, erin, committed):
    good = edited_wrong(committed)
    Chapter.objects.filter(code="II.7").update(state=Chapter.State.DRAFT)
    committed(lambda: chapter_revert(revision=good, user=erin))
    assert Chapter.objects.get(code="II.7").state == Chapter.State.DRAFT


def test_revert_over_a_newer_version_is_refused_and_writes_nothing(books, alice, committed):
    good = edited_wrong(committed)
    opened = source_tag(code="II.7")
    committed(lambda: chapter_import(document=sketch(title="Meanwhile")))
    with pytest.raises(SourceChanged):
        chapter_revert(revision=good, user=alice, opened=opened)
    assert chapter_source(code="II.7")["title"] == "Meanwhile"


def test_revert_needs_who_may_edit_the_chapter(books, django_user_model, committed):
    good = edited_wrong(committed)
    reader = django_user_model.objects.create_user("rita", password="rita-pass-9")
    with pytest.raises(Forbidden):
        chapter_revert(revision=good, user=reader)


def test_a_revision_that_no_longer_fits_is_refused_with_its_path(books, alice, committed):
    committed(lambda: chapter_import(document=sketch()))
    old = chapter_history(chapter=Chapter.objects.get(code="II.7"))[0]
    broken = sketch(problems=[problem("p1", "worked"), {"key": "p2"}])
    ChapterRevision.objects.filter(pk=old.pk).update(text=json.dumps(broken))
    with pytest.raises(ChapterFileError) as refused:
        chapter_revert(revision=ChapterRevision.objects.get(pk=old.pk), user=alice)
    assert any(error.startswith("problems[1]") for error in refused.value.errors)
    assert len(chapter_source(code="II.7")["problems"]) == 3
