"""Staff roles: Authors edit the course; Editors edit and publish. Who may do what is said here
(the permission each action needs) and decided by the actions (`domain.actions`), nowhere else."""

from collections.abc import Iterable

from django.contrib.auth.models import Group, Permission

CONTENT_MODELS = (
    "book",
    "chapter",
    "stranditem",
    "figure",
    "apparatuslink",
    "notation",
    "proposition",
    "problem",
    "solution",
)
READ_MODELS = ("release", "verdict")

PUBLISH_PERMISSION = "curriculum.publish_chapter"  # publish, and withdraw or re-show a release
REVERIFY_PERMISSION = "curriculum.change_solution"  # send a chapter's solutions to the verifier
TOKEN_ISSUE_PERMISSION = "curriculum.add_apitoken"


def roles_ensure() -> None:
    """Idempotent: runs after every migrate so the groups always match this table."""
    codenames = [
        f"{action}_{model}"
        for model in CONTENT_MODELS
        for action in ("add", "change", "delete", "view")
    ]
    codenames += [f"view_{model}" for model in READ_MODELS]
    content = list(
        Permission.objects.filter(content_type__app_label="curriculum", codename__in=codenames)
    )
    publish = list(
        Permission.objects.filter(content_type__app_label="curriculum", codename="publish_chapter")
    )
    authors, _ = Group.objects.get_or_create(name="Authors")
    authors.permissions.set(content)
    editors, _ = Group.objects.get_or_create(name="Editors")
    editors.permissions.set(content + publish)


class Forbidden(PermissionError):
    """The user's role does not allow this change (403 in the API, a message in admin)."""


def refusals(*, user, permissions: Iterable[str]) -> list[str]:
    """What the user's role does not allow, one reason each; no user is the system."""
    if user is None:
        return []
    return [
        f"your role may not do this (it needs {permission.split('.')[-1]})"
        for permission in permissions
        if not user.has_perm(permission)
    ]
