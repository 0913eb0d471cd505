"""/account/: a signed-in reader's progress in every book, their data to download, and their
account to delete. Signing up, in and out is allauth's, under /accounts/. Every answer here is
the reader's own: private, never kept by a cache."""

import json
import re
from typing import cast

from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from curriculum.domain.progress import books_progress
from curriculum.domain.readers import deletion_refusal, reader_delete, reader_export


def _me(request: HttpRequest) -> User:
    """The signed-in reader (every view here but `deleted` asks for one)."""
    return cast(User, request.user)


def _private(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    me = _me(request)
    books = books_progress(reader=me, staff=me.is_staff)
    context = {
        "books": books,
        "solved": sum(book.solved for book in books),
        "total": sum(book.total for book in books),
    }
    return _private(render(request, "site/account.html", context))


@login_required
@require_GET
def export(request: HttpRequest) -> HttpResponse:
    """Everything stored about the reader, as a JSON file to keep."""
    me = _me(request)
    data = reader_export(me)
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, indent=2), content_type="application/json"
    )
    filename = "curriculum-" + re.sub(r"[^A-Za-z0-9._-]", "_", me.get_username()) + ".json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return _private(response)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def delete(request: HttpRequest) -> HttpResponse:
    """GET asks first; POST (with its CSRF token) deletes and signs the reader out."""
    me = _me(request)
    refusal = deletion_refusal(me)
    if request.method == "POST" and not refusal:
        reader_delete(me)
        logout(request)
        return HttpResponseRedirect(reverse("site:account_deleted"), status=303)
    context = {"refusal": refusal, "attempts": me.attempts.count()}
    status = 403 if request.method == "POST" else 200
    return _private(render(request, "site/account_delete.html", context, status=status))


@require_GET
def deleted(request: HttpRequest) -> HttpResponse:
    """Where a deleted account's reader lands: it names nobody, so anyone may read it."""
    return render(request, "site/account_deleted.html")
