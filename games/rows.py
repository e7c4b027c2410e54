"""Plain-SQL writes of model rows, for the move path.

A move appends a log entry and updates its game's row, and moves are the site's most frequent
write. Building those two statements with the ORM (`bulk_create`, `QuerySet.update`) costs
several times what the database takes to run them, so they are written out here from the models'
own field metadata instead: each value goes through the field's `pre_save` (`auto_now`...) and
`get_db_prep_save` exactly as the ORM's own INSERT and UPDATE would, on any backend. Nothing here
knows a table or a column by name; signals are not sent (the ORM's bulk writes do not send them
either).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connections, router
from django.db.models import Model


def _insert_sql(objs: Sequence[Model], connection: Any) -> tuple[str, list[Any]]:
    meta = objs[0]._meta
    quote = connection.ops.quote_name
    fields = [f for f in meta.concrete_fields if f is not meta.auto_field]
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"
        f" VALUES {', '.join([row] * len(objs))}"
    )
    params = [
        field.get_db_prep_save(field.pre_save(obj, add=True), connection)
        for obj in objs
        for field in fields
    ]
    return sql, params


def _update_sql(obj: Model, field_names: Sequence[str], connection: Any) -> tuple[str, list[Any]]:
    meta = obj._meta
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in field_names]
    fields += [f for f in meta.concrete_fields if getattr(f, "auto_now", False) and f not in fields]
    sql = (
        f"UPDATE {quote(meta.db_table)} SET {', '.join(f'{quote(f.column)} = %s' for f in fields)}"
        f" WHERE {quote(meta.pk.column)} = %s"
    )
    params = [f.get_db_prep_save(f.pre_save(obj, add=False), connection) for f in fields]
    params.append(meta.pk.get_db_prep_value(obj.pk, connection))
    return sql, params


def _inserted(objs: Sequence[Model], connection: Any) -> None:
    for obj in objs:
        obj._state.adding = False
        obj._state.db = connection.alias


def insert(objs: Sequence[Model]) -> None:
    """INSERT new instances of one model, in one statement; auto-increment keys are not read
    back."""
    if not objs:
        return
    connection = connections[router.db_for_write(type(objs[0]))]
    with connection.cursor() as cursor:
        cursor.execute(*_insert_sql(objs, connection))
    _inserted(objs, connection)


def update(obj: Model, field_names: Sequence[str]) -> int:
    """UPDATE `obj`'s row, setting the named fields (and any `auto_now` field) from `obj`;
    returns the number of rows changed."""
    connection = connections[router.db_for_write(type(obj))]
    with connection.cursor() as cursor:
        cursor.execute(*_update_sql(obj, field_names, connection))
        return cursor.rowcount


def insert_and_update(objs: Sequence[Model], obj: Model, field_names: Sequence[str]) -> int:
    """`insert(objs)` then `update(obj, field_names)`; on PostgreSQL as one statement (the
    INSERT in a WITH clause), saving a round trip. Returns the number of rows updated."""
    connection = connections[router.db_for_write(type(obj))]
    if not objs or connection.vendor != "postgresql":
        insert(objs)
        return update(obj, field_names)
    insert_sql, insert_params = _insert_sql(objs, connection)
    update_sql, update_params = _update_sql(obj, field_names, connection)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH inserted AS ({insert_sql}) {update_sql}", insert_params + update_params
        )
        rowcount = cursor.rowcount
    _inserted(objs, connection)
    return rowcount
