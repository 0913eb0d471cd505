from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_roles(sender, **kwargs):
    from curriculum.domain.roles import roles_ensure

    roles_ensure()


def _begin_history(sender, **kwargs):
    """A first revision of each chapter stored before the history began."""
    from curriculum.domain.chapter_history import history_begin

    history_begin()


def _store_references(sender, **kwargs):
    """Which chapters each chapter's texts name, stored once for a database from before the
    record (later saves keep it: `revised_documents.documents_revised`)."""
    from curriculum.domain.references import references_store
    from curriculum.models import Chapter, ChapterReference

    if not ChapterReference.objects.exists() and Chapter.objects.exists():
        references_store()


def _index_search(sender, **kwargs):
    """Entries of another revision than their chapter's (a database from before revisions, or
    a change whose rebuild did not run) are made again, so search is right after migrate. The
    rebuild renders through the cache, so a database cache's table is made first."""
    from django.core.management import call_command

    from curriculum.domain.search_index import search_index_sync

    call_command("createcachetable", verbosity=0)
    search_index_sync()


class CurriculumConfig(AppConfig):
    name = "curriculum"
    verbose_name = "Curriculum"

    def ready(self):
        post_migrate.connect(_ensure_roles, sender=self)
        post_migrate.connect(_index_search, sender=self)
        post_migrate.connect(_begin_history, sender=self)
        post_migrate.connect(_store_references, sender=self)
        from curriculum.domain.revised_documents import documents_revised
        from curriculum.domain.revisions import chapters_revised
        from curriculum.domain.search_index import search_index_revised

        chapters_revised.connect(search_index_revised, dispatch_uid="search_index_revised")
        # claims, history and references, from one read of each chapter
        chapters_revised.connect(documents_revised, dispatch_uid="documents_revised")
        # Celery's registry of this process: the domain sends tasks by name, and a registered
        # task runs in-process when there is no broker, with its own options (time limits).
        import curriculum.tasks  # noqa: F401
