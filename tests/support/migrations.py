"""Migrating the test database to given nodes and back, each migration with the models of its
own history only.

Django's `MigrationExecutor.migrate` keeps one state of the whole project and renders it in
memory before it (un)applies a migration; it then reloads, at every operation of every later
migration in the project, the models that refer to the one the operation changes: each model
refers to the users, so taking the accounts app back a few migrations rebuilt hundreds of
models again and again (most of a migration test's time). Here each migration runs with the
state its own dependencies make (`MigrationLoader.project_state` of that node): the same
operations, on the same database, each seeing the models as they were when it was written.
"""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import StateApps

Node = tuple[str, str]


def migrate(targets: list[Node]) -> StateApps:
    """(Un)apply what takes the database to `targets` (as `manage.py migrate` would plan it),
    and return the models as they are at `targets`."""
    executor = MigrationExecutor(connection)
    loader = executor.loader
    for migration, backwards in executor.migration_plan(targets):
        node = (migration.app_label, migration.name)
        # The state just before the migration, to apply it or to undo it (`Migration.unapply`
        # replays its operations from there, then undoes them in reverse).
        state = loader.project_state(node, at_end=False)
        state.apps  # noqa: B018 (rendered once: the operations reload what they change)
        if backwards:
            executor.unapply_migration(state, migration)
        else:
            executor.apply_migration(state, migration)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def migrate_to_latest() -> StateApps:
    """Apply every migration not applied (the database as the models say)."""
    return migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
