from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_roles(sender, **kwargs):
    from curriculum.domain.roles import roles_ensure

    roles_ensure()


class CurriculumConfig(AppConfig):
    name = "curriculum"
    verbose_name = "Curriculum"

    def ready(self):
        post_migrate.connect(_ensure_roles, sender=self)
        # Celery's registry of this process: the domain sends tasks by name, and a registered
        # task runs in-process when there is no broker, with its own options (time limits).
        import curriculum.tasks  # noqa: F401
