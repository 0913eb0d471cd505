"""What the ask-again migrations' tests share: a deployment applying what is new."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

UNDECIDED = {("pending", None, "")}
"""Status, decided_at and engine_version of a verdict asked again."""


def migrated_from(name: str) -> None:
    """Back to migration ``name`` of curriculum, then forward to its leaf."""
    executor = MigrationExecutor(connection)
    executor.migrate([("curriculum", name)])
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("curriculum"))
