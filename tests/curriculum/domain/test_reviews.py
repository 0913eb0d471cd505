"""Review: an Author submits with a note, Editors' queue is oldest first, an Editor returns it
with comments or publishes it with release notes, which end the request."""

import pytest
from django.test import override_settings

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import ChapterPublish, PublishRefused
from curriculum.domain.reviews import ReviewRefused, ReviewReturn, ReviewSubmit, review_queue
from curriculum.domain.roles import Forbidden
from curriculum.models import Chapter, Release, Review
from tests.conftest import sketch, verify_now


@pytest.fixture
def ready(books):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    return chapter


def test_a_submitted_chapter_waits_in_the_queue_oldest_first_with_its_note(books, alice):
    chapter_import(document=sketch("II.7"))
    chapter_import(document=sketch("II.8"))
    first, second = Chapter.objects.get(code="II.8"), Chapter.objects.get(code="II.7")
    ReviewSubmit(chapter=first, user=alice, note="New variants.").execute()
    ReviewSubmit(chapter=second, user=alice, note="First draft.").execute()
    ReviewSubmit(chapter=first, user=alice, note="New variants, fixed.").execute()  # keeps place
    assert [(r.chapter.code, r.note, r.submitted_by) for r in review_queue()] == [
        ("II.8", "New variants, fixed.", "alice"),
        ("II.7", "First draft.", "alice"),
    ]


def test_an_editor_returns_with_comments_the_author_then_reads(ready, alice, erin):
    ReviewSubmit(chapter=ready, user=alice, note="Please look.").execute()
    with pytest.raises(Forbidden, match="only Editors return"):
        ReviewReturn(chapter=ready, user=alice, comments="Fine by me.").execute()
    with pytest.raises(ReviewRefused, match="comments: say what the author should change"):
        ReviewReturn(chapter=ready, user=erin, comments="  ").execute()
    ReviewReturn(chapter=ready, user=erin, comments="The thesis overclaims.").execute()
    review = Review.objects.get(chapter=ready)
    assert (review.status, review.comments, review.returned_by) == (
        "returned",
        "The thesis overclaims.",
        "erin",
    )
    assert not review_queue().exists()
    with pytest.raises(ReviewRefused, match="II.7: it is not waiting for review"):
        ReviewReturn(chapter=ready, user=erin, comments="Again.").execute()


def test_publishing_with_notes_records_them_and_ends_the_review(ready, alice, erin):
    ReviewSubmit(chapter=ready, user=alice, note="Ready.").execute()
    ChapterPublish(chapter=ready, user=erin, notes="  First release: softmax rows.\n").execute()
    assert Release.objects.get(chapter=ready).notes == "First release: softmax rows."
    assert not Review.objects.filter(chapter=ready).exists()


@override_settings(LIMIT_REVIEW_TEXT_CHARS=10)
def test_texts_past_the_limit_are_refused_with_their_name_and_nothing_is_written(
    ready, alice, erin
):
    with pytest.raises(ReviewRefused, match="note: 11 characters, at most 10"):
        ReviewSubmit(chapter=ready, user=alice, note="x" * 11).execute()
    assert not Review.objects.exists()
    with pytest.raises(PublishRefused, match="release notes: 11 characters, at most 10"):
        ChapterPublish(chapter=ready, user=erin, notes="x" * 11).execute()
    assert not Release.objects.exists()
