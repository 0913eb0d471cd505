"""Every action is check() then execute(): a refused check writes nothing, and execute() refuses
what check() refuses, whoever calls it."""

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from curriculum.domain.actions import Action
from curriculum.domain.chapter_files import ChapterImport, chapter_import
from curriculum.domain.editing import (
    BookSave,
    ChapterSave,
    ChapterWithdraw,
    ProblemDelete,
    ProblemSave,
    SolutionDelete,
)
from curriculum.domain.gate import ChapterPublish, chapter_publish
from curriculum.domain.problem_keys import next_problem
from curriculum.domain.tokens import TokenIssue
from curriculum.domain.verification import Reverify
from curriculum.models import ApiToken, Book, Chapter, Problem, Release, Solution, Verdict
from tests.conftest import sketch, verify_now


@pytest.fixture
def released(books):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    return Chapter.objects.get(code="II.7")


@pytest.fixture
def sam(db):
    """Staff, in neither group: may do nothing."""
    return User.objects.create_user("sam", password="sam-pass-9", is_staff=True)


def stored() -> list:
    """What any action could write, as rows."""
    return [
        list(Book.objects.order_by("pk").values()),
        list(Chapter.objects.order_by("pk").values()),
        list(Problem.objects.order_by("pk").values()),
        list(Solution.objects.order_by("pk").values()),
        list(Verdict.objects.order_by("pk").values()),
        list(Release.objects.order_by("pk").values_list("pk", "number")),
        list(ApiToken.objects.order_by("pk").values()),
    ]


def problem(chapter: Chapter, key: str = "p1") -> Problem:
    return Problem.objects.get(chapter=chapter, key=key)


def renamed_book(chapter: Chapter) -> Book:
    book = Book.objects.get(pk=chapter.book_id)
    book.title = "Renamed"
    return book


def retitled(chapter: Chapter) -> Chapter:
    chapter.title = "Retitled"
    return chapter


def edited(chapter: Chapter) -> Problem:
    found = problem(chapter)
    found.statement = "Changed."
    return found


ACTIONS = {
    "save a book": lambda c, u: BookSave(book=renamed_book(c), user=u),
    "save a chapter": lambda c, u: ChapterSave(chapter=retitled(c), user=u),
    "withdraw": lambda c, u: ChapterWithdraw(chapter=c, user=u),
    "save a problem": lambda c, u: ProblemSave(problem=edited(c), user=u),
    "delete a problem": lambda c, u: ProblemDelete(problem=problem(c), user=u),
    "delete a solution": lambda c, u: SolutionDelete(problem=problem(c), user=u),
    "publish": lambda c, u: ChapterPublish(chapter=c, user=u),
    "import": lambda c, u: ChapterImport(document=sketch(title="Imported"), user=u),
    "re-verify": lambda c, u: Reverify(code=c.code, user=u),
    "issue a token": lambda c, u: TokenIssue(token=ApiToken(user=colleague(), name="x"), user=u),
}


def colleague() -> User:
    """Staff other than the issuer: issuing a token for someone else is a superuser's."""
    return User.objects.get_or_create(username="olga", defaults={"is_staff": True})[0]


@pytest.mark.parametrize("name", ACTIONS)
def test_a_refused_check_writes_nothing_and_execute_refuses_the_same(released, sam, name):
    before = stored()
    action: Action = ACTIONS[name](released, sam)
    reasons = action.check()
    assert reasons
    assert stored() == before
    with pytest.raises(PermissionError):
        ACTIONS[name](Chapter.objects.get(pk=released.pk), sam).execute()
    assert stored() == before


@pytest.mark.parametrize("name", ["withdraw", "publish", "issue a token"])
def test_an_author_is_refused_what_is_an_editors_or_an_admins(released, alice, name):
    before = stored()
    assert ACTIONS[name](released, alice).check()
    with pytest.raises(PermissionError):
        ACTIONS[name](Chapter.objects.get(pk=released.pk), alice).execute()
    assert stored() == before


def test_an_author_is_refused_a_withdraw_by_file_and_nothing_is_written(released, alice):
    before = stored()
    with pytest.raises(PermissionError, match="for Editors"):
        chapter_import(document=sketch(state="draft"), user=alice)
    assert stored() == before


@pytest.mark.parametrize("name", ACTIONS)
def test_the_system_may_do_each_action(released, erin, name):
    """No user is the system (a command): its check refuses nothing on its role."""
    action = ACTIONS[name](released, None)
    if name == "issue a token":  # a token has a holder
        action = TokenIssue(token=ApiToken(user=erin, name="mine"))
    assert not [r for r in action.check() if "may not" in r or "Editors" in r]


def test_a_token_is_only_for_active_staff_even_from_an_admin(db, root_user):
    reader = User.objects.create_user("reader", password="reader-pass-9")
    action = TokenIssue(token=ApiToken(user=reader, name="x"), user=root_user)
    assert action.check() == ["reader is not active staff; API tokens are for staff"]
    with pytest.raises(ValueError, match="not active staff"):
        TokenIssue(token=ApiToken(user=reader, name="x"), user=root_user).execute()
    assert not ApiToken.objects.exists()


@pytest.fixture
def root_user(db):
    return User.objects.create_superuser("root", password="root-pass-9")


@pytest.fixture
def viewer(db):
    """Staff who may look at problems and change nothing."""
    user = User.objects.create_user("vic", password="vic-pass-9", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_problem"))
    return user


def test_a_role_that_may_only_look_cannot_verify_again_from_admin(released, viewer, client):
    """Who may re-verify is the action's to say, in admin as in the API."""
    client.force_login(viewer)
    url = reverse("admin:curriculum_problem_changelist")
    assert "verify_again" not in client.get(url).content.decode()
    before = stored()
    ids = [p.pk for p in released.problems.all()]
    client.post(url, {"action": "verify_again", "_selected_action": ids})
    assert stored() == before


def test_an_author_verifies_again_from_admin(released, alice, client):
    client.force_login(alice)
    url = reverse("admin:curriculum_problem_changelist")
    assert "verify_again" in client.get(url).content.decode()
    ids = [p.pk for p in released.problems.all()]
    client.post(url, {"action": "verify_again", "_selected_action": ids})
    assert Verdict.objects.filter(solution__problem__chapter=released, status="pending").exists()


def test_a_problem_saved_without_a_key_gets_the_next_free_one(released):
    expected = next_problem(chapter_id=released.pk)
    added = problem(released)
    added.pk, added.key, added._state.adding = None, "", True
    ProblemSave(problem=added).execute()
    assert (added.key, added.position) == expected
    assert Problem.objects.filter(chapter=released, key=expected.key).exists()
