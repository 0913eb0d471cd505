"""Everything stored about a reader is in their export, and deleting their account deletes
it: their attempts go, another reader's stay, reports keep their text naming nobody, and the
anonymous tallies stay. Staff accounts are not deleted this way."""

import json

import pytest
from allauth.account.models import EmailAddress
from axes.models import AccessAttempt
from django.contrib.auth.models import User

from curriculum.domain.readers import NotDeletable, reader_delete, reader_export
from curriculum.models import Attempt, PracticeTally, ProblemReport
from tests.curriculum.domain.test_progress import attempt


@pytest.fixture
def rita(db):
    user = User.objects.create_user("rita", email="rita@example.org", password="rita-pass-9-long")
    EmailAddress.objects.create(user=user, email="rita@example.org", primary=True, verified=False)
    return user


@pytest.fixture
def sam(db):
    return User.objects.create_user("sam", password="sam-pass-9-long")


def report(reporter: User | None, message: str) -> ProblemReport:
    return ProblemReport.objects.create(
        chapter_code="II.7",
        problem_key="p3",
        release=1,
        instance=4,
        answer="1 2",
        message=message,
        reporter=reporter,
    )


def test_the_export_holds_the_account_every_attempt_and_every_report(rita, sam):
    attempt(rita, "p3", right=False, instance=2, answer="0.1 0.9", mistake="uniform")
    attempt(rita, "p3", right=True, instance=5, minutes=3)
    attempt(sam, "p2", right=True)
    report(rita, "The statement says 3 rows; the inputs have 2.")
    report(sam, "Not mine.")
    data = json.loads(json.dumps(reader_export(rita)))  # what the download holds
    assert data["account"]["username"] == "rita"
    assert data["account"]["email"] == "rita@example.org"
    assert data["account"]["date_joined"].startswith(str(rita.date_joined.year))
    assert data["email_addresses"] == [
        {"email": "rita@example.org", "verified": False, "primary": True}
    ]
    assert data["attempts"] == [
        {
            "chapter": "II.7",
            "problem": "p3",
            "release": 1,
            "instance": 2,
            "answer": "0.1 0.9",
            "right": False,
            "mistake": "uniform",
            "at": "2026-03-01T09:30:00+00:00",
        },
        {
            "chapter": "II.7",
            "problem": "p3",
            "release": 1,
            "instance": 5,
            "answer": "0.5 0.5",
            "right": True,
            "mistake": "",
            "at": "2026-03-01T09:33:00+00:00",
        },
    ]
    assert [r["message"] for r in data["problem_reports"]] == [
        "The statement says 3 rows; the inputs have 2."
    ]
    assert data["problem_reports"][0]["instance"] == 4


def test_deleting_an_account_removes_its_attempts_and_keeps_everyone_elses(rita, sam):
    attempt(rita, "p3", right=True)
    attempt(rita, "p2", right=False)
    kept = attempt(sam, "p3", right=True)
    filed = report(rita, "A typo in the statement.")
    PracticeTally.objects.create(chapter_code="II.7", problem_key="p3", outcome="right", count=2)
    AccessAttempt.objects.create(
        username="Rita", ip_address="127.0.0.1", user_agent="x", failures_since_start=1
    )
    assert reader_delete(rita) == 2
    assert not User.objects.filter(username="rita").exists()
    assert not EmailAddress.objects.filter(email="rita@example.org").exists()
    assert list(Attempt.objects.values_list("pk", flat=True)) == [kept.pk]
    filed.refresh_from_db()
    assert filed.reporter is None and filed.message == "A typo in the statement."
    assert PracticeTally.objects.get(problem_key="p3").count == 2  # names no one: stays
    assert not AccessAttempt.objects.filter(username__iexact="rita").exists()


def test_a_staff_account_is_not_deleted_by_its_holder(db):
    editor = User.objects.create_user("ed", password="ed-pass-9-long", is_staff=True)
    attempt(editor, "p3", right=True)
    with pytest.raises(NotDeletable, match="Staff accounts are not deleted here"):
        reader_delete(editor)
    assert User.objects.filter(username="ed").exists() and Attempt.objects.count() == 1
