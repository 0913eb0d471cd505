"""Staff roles. Who may do what is said here (the permission each action needs) and decided by
the actions (`domain.actions`), nowhere else; admin shows only what a role may do.

- Authors edit chapters and everything in them (parts, problems, solutions; deleting a part or
  a problem is an edit), and submit a chapter for review. They read books but never edit,
  add or delete them, never delete a chapter, and never publish, withdraw, schedule or return.
- Editors do all of that, and edit books, delete unreleased chapters, publish (with release
  notes), schedule a publish, withdraw, and return a chapter to its author with comments.
- Both upload images to the media library and change their name, alt text or image (texts show
  them as `![alt](media:name)`); only Editors delete one, as a text may still show it.
"""

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
# What only Editors may do to content: books are the course's frame, and a chapter goes whole.
EDITOR_ONLY = ("add_book", "change_book", "delete_book", "delete_chapter")

PUBLISH_PERMISSION = "curriculum.publish_chapter"  # publish, and withdraw or re-show a release
REVERIFY_PERMISSION = "curriculum.change_solution"  # send a chapter's solutions to the verifier
TOKEN_ISSUE_PERMISSION = "curriculum.add_apitoken"  # staff issue and revoke their own tokens
TOKEN_MANAGE_PERMISSION = "curriculum.manage_apitoken"  # see and revoke everyone's (Editors)
TOKEN_ISSUE_ANY_PERMISSION = "curriculum.issue_any_apitoken"  # for others (no group: superusers)
TOKEN_CODENAMES = ("add_apitoken", "change_apitoken", "view_apitoken")  # every role's own
MEDIA_CODENAMES = ("add_mediafile", "change_mediafile", "view_mediafile")  # every role's
MEDIA_DELETE_PERMISSION = "curriculum.delete_mediafile"  # Editors: a text may still show it


def roles_ensure() -> None:
    """Idempotent: runs after every migrate so the groups always match this table."""
    codenames = [
        f"{action}_{model}"
        for model in CONTENT_MODELS
        for action in ("add", "change", "delete", "view")
    ]
    codenames += [f"view_{model}" for model in READ_MODELS]
    codenames += TOKEN_CODENAMES + MEDIA_CODENAMES
    content = list(
        Permission.objects.filter(content_type__app_label="curriculum", codename__in=codenames)
    )
    publish = list(
        Permission.objects.filter(content_type__app_label="curriculum", codename="publish_chapter")
    )
    editors_own = list(
        Permission.objects.filter(
            content_type__app_label="curriculum",
            codename__in=["manage_apitoken", MEDIA_DELETE_PERMISSION.split(".")[-1]],
        )
    )
    authors, _ = Group.objects.get_or_create(name="Authors")
    authors.permissions.set([p for p in content if p.codename not in EDITOR_ONLY])
    editors, _ = Group.objects.get_or_create(name="Editors")
    editors.permissions.set(content + publish + editors_own)


class Forbidden(PermissionError):
    """The user's role does not allow this change (403 in the API, a message in admin); `path`
    names the part of the chapter file that asked for it, where one did."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class TokenOutOfScope(Forbidden):
    """A usable token asked for more than its scopes, or its holder's role now, allow (403):
    `scope` is the one it needs."""

    def __init__(self, message: str, *, scope: str, path: str | None = None) -> None:
        super().__init__(message, path=path)
        self.scope = scope


class Withheld(str):
    """A refusal of a permission the request's API token withholds (`permissions_withhold`),
    whatever the holder's role: `scope` would grant it, `path` is what asked for it."""

    scope: str
    path: str | None

    def __new__(cls, scope: str, path: str | None = None) -> "Withheld":
        reason = super().__new__(cls, f"this token lacks the scope {scope}")
        reason.scope, reason.path = scope, path
        return reason


WITHHELD = "withheld_by_token"  # the attribute on a user a token brought: {permission: scope}


def permissions_withhold(user, withheld: dict[str, str]) -> None:
    """For this request, refuse `user` each permission named (with the scope that would grant
    it), whatever their role: a token does no more than its scopes (`domain.tokens` says which
    scope grants which permission), for every action that asks, by whatever path."""
    setattr(user, WITHHELD, withheld)


def refusals(*, user, permissions: Iterable[str]) -> list[str]:
    """What the user's role, or else the token they came with, does not allow, one reason
    each; no user is the system."""
    if user is None:
        return []
    withheld = getattr(user, WITHHELD, {})
    reasons: list[str] = []
    for permission in permissions:
        if not user.has_perm(permission):  # the role first: no token could grant it
            reasons.append(f"your role may not do this (it needs {permission.split('.')[-1]})")
        elif permission in withheld:
            reasons.append(Withheld(withheld[permission]))
    return reasons


def scope_refusal(reasons: list[str]) -> TokenOutOfScope | None:
    """The refusal for the first reason a token's scopes gave, if any did."""
    for reason in reasons:
        if isinstance(reason, Withheld):
            return TokenOutOfScope(str(reason), scope=reason.scope, path=reason.path)
    return None
