"""What is stored about a reader with an account, all of it: to hand it over, or to delete it.

An account holds its user row (username, email, when it joined and last logged in), allauth's
email addresses, its practice attempts and the problem reports it filed. Deleting the account
deletes its attempts with it (`on_delete=CASCADE`) and keeps each report's text with its
reporter emptied (`SET_NULL`), as a reader without an account would have filed it; the login
lockout's failures that name the username go too. Anonymous tallies never named anyone and
stay. Staff accounts are not deleted here: they carry authors' and editors' history (releases
made, tokens) and are managed in admin.
"""

from datetime import datetime
from typing import Any

from allauth.account.models import EmailAddress
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from curriculum.models import Attempt, ProblemReport

EXPORT_FORMAT = 1


class NotDeletable(Exception):
    """This account is not deleted by its holder (the message says why)."""


def _moment(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def reader_export(user: User) -> dict[str, Any]:
    """Everything stored about `user`, as JSON-ready data, oldest first."""
    attempts = Attempt.objects.filter(reader=user).order_by("at", "id")
    reports = ProblemReport.objects.filter(reporter=user).order_by("at", "id")
    return {
        "format": EXPORT_FORMAT,
        "exported_at": _moment(timezone.now()),
        "account": {
            "username": user.username,
            "email": user.email,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "date_joined": _moment(user.date_joined),
            "last_login": _moment(user.last_login),
        },
        "email_addresses": [
            {"email": e.email, "verified": e.verified, "primary": e.primary}
            for e in EmailAddress.objects.filter(user=user).order_by("id")
        ],
        "attempts": [
            {
                "chapter": a.chapter_code,
                "problem": a.problem_key,
                "release": a.release,
                "instance": a.instance,
                "answer": a.answer,
                "right": a.right,
                "mistake": a.mistake,
                "at": _moment(a.at),
            }
            for a in attempts.iterator()
        ],
        "problem_reports": [
            {
                "chapter": r.chapter_code,
                "problem": r.problem_key,
                "release": r.release,
                "instance": r.instance,
                "answer": r.answer,
                "message": r.message,
                "status": r.status,
                "at": _moment(r.at),
            }
            for r in reports.iterator()
        ],
    }


def deletion_refusal(user: User) -> str:
    """Why `user` may not delete their own account; empty when they may."""
    if user.is_staff or user.is_superuser:
        return (
            "Staff accounts are not deleted here: they carry the history of what their holder "
            "wrote and published. An administrator removes one in admin (Users)."
        )
    return ""


def reader_delete(user: User) -> int:
    """Delete the account and everything that names it; the number of attempts deleted."""
    refusal = deletion_refusal(user)
    if refusal:
        raise NotDeletable(refusal)
    with transaction.atomic():
        attempts = Attempt.objects.filter(reader=user).count()
        AccessAttempt.objects.filter(username__iexact=user.username).delete()
        user.delete()
    return attempts
