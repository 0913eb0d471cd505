"""The chapter row lock: every writer that can break the publication rule takes it first.

Publishing re-checks the gate under it; deleting or editing problems and solutions, importing,
and re-verifying wait for it; so two staff at once cannot make a release that breaks the rule.

Order: the chapter row is always locked before any verdict row of it (requests and the
worker's decisions alike), so no two writers can deadlock.
"""

from curriculum.models import Chapter


def chapter_lock(*, chapter_id: int) -> Chapter:
    """Lock the chapter row for the rest of the transaction; callers must be inside atomic()."""
    return Chapter.objects.select_for_update().get(pk=chapter_id)
