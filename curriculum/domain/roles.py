"""Staff roles: Authors edit the course; Editors edit and publish."""

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


def permission_require(*, user, permission: str) -> None:
    """No user is the command line, run by whoever runs the server."""
    if user is not None and not user.has_perm(permission):
        raise Forbidden(f"your role may not do this (it needs {permission.split('.')[-1]})")
