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
