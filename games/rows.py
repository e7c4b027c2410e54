"""Plain-SQL reads and writes of model rows, for the hottest paths: reading a game with its seats
(every board page, game API call and move) and writing a move.

Building these statements with the ORM (`select_related` and `prefetch_related`, `bulk_create`,
`QuerySet.update`) costs several times what the database takes to run them, so they are written
out here from the models' own field metadata instead. Values go through the same conversions as
in the ORM: on the way in, the field's `pre_save` (`auto_now`...) and `get_db_prep_save`; on the
way out, the backend's and the field's converters, then `Model.from_db`, with related objects
cached on the instances as `select_related` caches them. Nothing here knows a table or a column
by name; signals are not sent for writes (the ORM's bulk writes do not send them either).
"""

from __future__ import annotations

import functools
import json
import operator
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.conf import settings
from django.db import NotSupportedError, connections, models, router, transaction
from django.db.models import Field, Model
from django.db.models.fields.reverse_related import ForeignObjectRel

# -- reads: a row with its children, in one row -----------------------------------------------


@dataclass(frozen=True)
class _Table:
    """One model in a read: where its columns start in a row, how to convert them, and how to
    attach its instance to the instance it was reached from."""

    model: type[Model]
    start: int
    end: int
    pk: int  # the primary key's column in a row
    converters: tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]  # (offset, ..., col)
    parent: int | None  # index of the table it hangs from
    attach: Callable[[Model, Model | None], None] | None  # parent.<relation> = instance
    attach_back: Callable[[Model, Model], None] | None  # instance.<relation> = parent
    fields: tuple[Field, ...]  # the fields loaded, in the order of the row's columns
    field_names: tuple[str, ...] | None  # their attnames, when they are not all the fields


class _Tables:
    """The tables of a read: one model, then the relations followed from it, each joined and
    given its columns, in the order its rows hold them."""

    def __init__(
        self, connection: Any, model: type[Model], prefix: str, only: Sequence[str] = ()
    ) -> None:
        self.connection, self.prefix = connection, prefix
        self.quote = connection.ops.quote_name
        self.columns: list[str] = []
        self.joins: list[str] = []
        self.tables: list[_Table] = []
        self.by_path: dict[str, tuple[int, bool]] = {}  # path -> (index, reached by outer join)
        self._add(model, None, None, None, only)

    def alias(self, index: int) -> str:
        return self.quote(f"{self.prefix}{index}")

    def _add(self, model, parent, attach, attach_back, only: Sequence[str]) -> int:
        meta, connection = model._meta, self.connection
        fields = list(meta.concrete_fields)
        field_names = None
        if only:
            wanted = {meta.get_field(name).attname for name in only} | {meta.pk.attname}
            fields = [f for f in fields if f.attname in wanted]
            field_names = tuple(f.attname for f in fields)
        alias = f"{self.prefix}{len(self.tables)}"
        converters = []
        for offset, field in enumerate(fields):
            col = field.get_col(alias)
            found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
            if found:
                converters.append((offset, tuple(found), col))
        start = len(self.columns)
        self.tables.append(
            _Table(
                model,
                start,
                start + len(fields),
                start + fields.index(meta.pk),
                tuple(converters),
                parent,
                attach,
                attach_back,
                tuple(fields),
                field_names,
            )
        )
        self.columns.extend(f"{self.quote(alias)}.{self.quote(f.column)}" for f in fields)
        return len(self.tables) - 1

    def follow(self, path: str, only: Sequence[str] = ()) -> None:
        """Join the relation `path` (`user`, `user__profile`) from a table already here; with
        `only`, load just those fields (and the keys that link the instances)."""
        quote = self.quote
        parent_path, _, name = path.rpartition("__")
        parent, parent_outer = self.by_path[parent_path] if parent_path else (0, False)
        parent_table = self.tables[parent]
        relation = parent_table.model._meta.get_field(name)
        if isinstance(relation, ForeignObjectRel):  # a reverse one-to-one, e.g. user -> profile
            remote = relation.field
            target = relation.related_model
            on = (
                f"{self.alias(parent)}.{quote(remote.target_field.column)}"
                f" = {self.alias(len(self.tables))}.{quote(remote.column)}"
            )
            outer = True
            attach, attach_back = relation.set_cached_value, remote.set_cached_value
            only = [*only, remote.name] if only else only
        else:  # a forward foreign key
            assert relation in parent_table.fields, f"{path}: load its key"
            target = relation.related_model
            on = (
                f"{self.alias(parent)}.{quote(relation.column)}"
                f" = {self.alias(len(self.tables))}.{quote(relation.target_field.column)}"
            )
            outer = parent_outer or relation.null
            attach = relation.set_cached_value
            attach_back = relation.remote_field.set_cached_value if relation.unique else None
        self.joins.append(
            f"{'LEFT OUTER' if outer else 'INNER'} JOIN {quote(target._meta.db_table)}"
            f" {self.alias(len(self.tables))} ON ({on})"
        )
        self.by_path[path] = (self._add(target, parent, attach, attach_back, only), outer)

    def from_clause(self) -> str:
        sql = f"{self.quote(self.tables[0].model._meta.db_table)} {self.alias(0)}"
        return " ".join([sql, *self.joins])


def _instances(
    tables: Sequence[_Table],
    row: Sequence[Any],
    built: dict[tuple[int, Any], Model],
    connection: Any,
) -> Model:
    """The instances of one row, converted and linked as `select_related` links them; returns
    the first. Instances already in `built` (by table and key) are reused."""
    db = connection.alias
    instances: list[Model | None] = []
    for index, table in enumerate(tables):
        pk = row[table.pk]
        instance = None if pk is None else built.get((index, pk))
        if instance is None and pk is not None:
            values = list(row[table.start : table.end])
            for offset, converters, col in table.converters:
                value = values[offset]
                for convert in converters:
                    value = convert(value, col, connection)
                values[offset] = value
            instance = built[index, pk] = table.model.from_db(db, table.field_names, values)
        instances.append(instance)
        if table.parent is not None:
            parent = instances[table.parent]
            if parent is not None:
                table.attach(parent, instance)
                if instance is not None and table.attach_back is not None:
                    table.attach_back(instance, parent)
    return instances[0]


# Column types that a JSON array gives back as the row itself would (numbers, strings, booleans),
# so that the backend's converters apply to them unchanged.
_JSON_PLAIN_TYPES = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "SmallAutoField",
        "IntegerField",
        "BigIntegerField",
        "SmallIntegerField",
        "PositiveIntegerField",
        "PositiveSmallIntegerField",
        "PositiveBigIntegerField",
        "CharField",
        "TextField",
        "BooleanField",
    }
)


def _json_plain(field: Field) -> bool:
    while field.is_relation:
        field = field.target_field
    return field.get_internal_type() in _JSON_PLAIN_TYPES


@dataclass(frozen=True)
class _FamilyPlan:
    sql: str
    parent: tuple[_Table, ...]
    children: tuple[_Table, ...]
    link: str  # the children's foreign key to the parent
    order_by: tuple[int, ...]  # the columns of a child's row that it is sorted by


@cache
def _family_plan(
    model: type[Model],
    children: str,
    related: tuple[str, ...],
    only: tuple[tuple[str, tuple[str, ...]], ...],
    order_by: tuple[str, ...],
    lock: bool,
    alias: str,
) -> _FamilyPlan:
    connection = connections[alias]
    if connection.vendor == "postgresql":
        aggregate, array = "json_agg({})::text", "json_build_array({})"
    elif connection.vendor == "sqlite":
        aggregate, array = "json_group_array({})", "json_array({})"
    else:
        raise NotSupportedError(f"select_with_children does not know {connection.vendor}")
    quote = connection.ops.quote_name
    parent = _Tables(connection, model, "p")
    relation = model._meta.get_field(children)
    child_model, link = relation.related_model, relation.field
    # The children's key to the parent is the parent's: not loaded, but set from the parent.
    child_fields = [f.name for f in child_model._meta.concrete_fields if f is not link]
    family = _Tables(connection, child_model, "c", child_fields)
    for path in related:
        family.follow(path, dict(only).get(path, ()))
    for table in family.tables:
        for field in table.fields:
            if not _json_plain(field):
                raise NotSupportedError(f"{field} cannot be read back from a JSON array")
    if len(family.columns) > 100:  # PostgreSQL's limit on a function's arguments
        raise NotSupportedError("too many columns for one JSON array")
    loaded = [f.name for f in family.tables[0].fields]
    sorted_by = tuple(family.tables[0].start + loaded.index(name) for name in order_by)

    pk = quote(model._meta.pk.column)
    rows_sql = (
        f"SELECT {aggregate.format(array.format(', '.join(family.columns)))}"
        f" FROM {family.from_clause()}"
        f" WHERE {family.alias(0)}.{quote(link.column)} = {parent.alias(0)}.{pk}"
    )
    sql = (
        f"SELECT {', '.join(parent.columns)}, ({rows_sql}) FROM {parent.from_clause()}"
        f" WHERE {parent.alias(0)}.{pk} = %s"
    )
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    return _FamilyPlan(sql, tuple(parent.tables), tuple(family.tables), link.name, sorted_by)


def select_with_children(
    model: type[Model],
    pk: Any,
    children: str,
    related: Sequence[str] = (),
    *,
    only: dict[str, Sequence[str]] | None = None,
    order_by: Sequence[str] = (),
    lock: bool = False,
) -> tuple[Model, list[Model]] | None:
    """The `model` instance with primary key `pk` and its `children` (a reverse foreign key, e.g.
    a game's `seats`), each with the relations `related` (`select_related` paths from the
    child), sorted by `order_by`; None if there is no such row. With `lock`, the parent's row is
    locked (`select_for_update()`).

    One row, whatever the number of children: they come as one JSON array (PostgreSQL and
    SQLite only), rather than as rows that each repeat the parent's columns. So the children's
    columns must be numbers, strings or booleans; `only` (path -> field names) loads just those
    fields of a related model, deferring the rest. Each child's foreign key is its parent,
    already loaded.
    """
    connection = connections[(router.db_for_write if lock else router.db_for_read)(model)]
    frozen_only = tuple((path, tuple(names)) for path, names in (only or {}).items())
    plan = _family_plan(
        model, children, tuple(related), frozen_only, tuple(order_by), lock, connection.alias
    )
    with connection.cursor() as cursor:
        cursor.execute(plan.sql, [model._meta.pk.get_db_prep_value(pk, connection)])
        row = cursor.fetchone()
    if row is None:
        return None
    parent = _instances(plan.parent, row, {}, connection)
    child_rows = json.loads(row[-1]) if row[-1] else []
    if plan.order_by:
        child_rows.sort(key=lambda r: [(r[i] is None, r[i]) for i in plan.order_by])
    built: dict[tuple[int, Any], Model] = {}
    family = [_instances(plan.children, r, built, connection) for r in child_rows]
    for child in family:
        setattr(child, plan.link, parent)
    return parent, family


# -- writes ------------------------------------------------------------------------------------

_AUTO_FIELDS = (models.AutoField, models.BigAutoField, models.SmallAutoField)
_INTEGER_FIELDS = (
    models.IntegerField,
    models.BigIntegerField,
    models.SmallIntegerField,
    models.PositiveIntegerField,
    models.PositiveBigIntegerField,
    models.PositiveSmallIntegerField,
)


_Shortcut = tuple[tuple[type, ...], Callable[[Any], Any]]


def _shortcut(field: Field, connection: Any) -> _Shortcut | None:
    """For a field of one of Django's common kinds: the value types for which
    `get_db_prep_save` comes down to one conversion, and that conversion; else None."""
    kind, ops = type(field), connection.ops
    if kind in _AUTO_FIELDS:
        return (int,), ops.validate_autopk_value
    if kind in _INTEGER_FIELDS:
        internal_type = field.get_internal_type()
        return (int,), lambda value: ops.adapt_integerfield_value(value, internal_type)
    if kind in (models.CharField, models.TextField):
        return (str,), _same
    if kind is models.BooleanField:
        return (bool,), _same
    if kind is models.DateTimeField and settings.USE_TZ:
        # Aware datetimes only: a naive one is made aware, with a warning, Django's way.
        return (
            (datetime,),
            lambda value: (
                ops.adapt_datetimefield_value(value)
                if value.utcoffset() is not None
                else field.get_db_prep_save(value, connection)
            ),
        )
    if kind is models.UUIDField:
        native = connection.features.has_native_uuid_field
        return (uuid.UUID,), _same if native else operator.attrgetter("hex")
    if kind is models.JSONField:
        encoder = field.encoder
        return (dict, list), lambda value: ops.adapt_json_value(value, encoder)
    if kind in (models.ForeignKey, models.OneToOneField):
        return _shortcut(field.target_field, connection)
    return None


def _same(value: Any) -> Any:
    return value


# For each value a statement takes: how to get it from an instance (`Field.pre_save(obj, add)`,
# which sets `auto_now` fields), and how to make it the database's (`db_value_for_save`).
_Savers = tuple[tuple[Callable[[Model, bool], Any], bool, Callable[[Any], Any]], ...]


def _savers(fields: Sequence[Field], alias: str, *, add: bool) -> _Savers:
    return tuple((field.pre_save, add, db_value_for_save(field, alias)) for field in fields)


@cache
def db_value_for_save(field: Field, alias: str) -> Callable[[Any], Any]:
    """`field.get_db_prep_save(value, connection)` as a function of the value.

    Django converts a value through a chain of about ten calls of the field's methods (`get_prep_
    value`, `to_python`, `get_db_prep_value`...), a measurable part of writing a move's dozen
    values. For the common kinds of field and their own type of value (an int for an integer
    field, an aware datetime, a UUID, a dict for a JSON field...), and for None, that chain comes
    down to the one conversion done here; other values and fields take Django's chain. A test
    checks that both give the same for every field of the project's models."""
    connection = connections[alias]
    generic = functools.partial(field.get_db_prep_save, connection=connection)
    found = _shortcut(field, connection)
    if found is None:
        return generic
    types, convert = found

    def db_value(value: Any) -> Any:
        if value is None:
            return None
        if type(value) in types:
            return convert(value)
        return generic(value)

    return db_value


def _insert_into(model: type[Model], connection: Any) -> tuple[str, tuple[Field, ...]]:
    """`INSERT INTO <table> (<columns>)` of every column of `model` but an auto-increment key,
    and their fields, in that order."""
    meta, quote = model._meta, connection.ops.quote_name
    fields = tuple(f for f in meta.concrete_fields if f is not meta.auto_field)
    columns = ", ".join(quote(f.column) for f in fields)
    return f"INSERT INTO {quote(meta.db_table)} ({columns})", fields


@cache
def _insert_statement(model: type[Model], rows: int, alias: str) -> tuple[str, _Savers]:
    """INSERT of `rows` rows of `model` (every column but an auto-increment key), and how to
    get the values it takes from each row's instance."""
    insert_into, fields = _insert_into(model, connections[alias])
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    return f"{insert_into} VALUES {', '.join([row] * rows)}", _savers(fields, alias, add=True)


def _params(objs: Sequence[Model], savers: _Savers) -> list[Any]:
    """The values a statement takes from `objs`, one instance after the other."""
    return [db_value(pre_save(obj, add)) for obj in objs for pre_save, add, db_value in savers]


def _insert_sql(objs: Sequence[Model], connection: Any) -> tuple[str, list[Any]]:
    sql, savers = _insert_statement(type(objs[0]), len(objs), connection.alias)
    return sql, _params(objs, savers)


@cache
def _update_statement(
    model: type[Model], field_names: tuple[str, ...], alias: str
) -> tuple[str, _Savers]:
    """UPDATE of one row of `model` by primary key, setting the named fields and any `auto_now`
    one, and how to get the values it takes from the instance (then the key)."""
    connection = connections[alias]
    meta, quote = model._meta, connection.ops.quote_name
    fields = [meta.get_field(name) for name in field_names]
    fields += [f for f in meta.concrete_fields if getattr(f, "auto_now", False) and f not in fields]
    sql = (
        f"UPDATE {quote(meta.db_table)} SET {', '.join(f'{quote(f.column)} = %s' for f in fields)}"
        f" WHERE {quote(meta.pk.column)} = %s"
    )
    return sql, _savers([*fields, meta.pk], alias, add=False)


def _update_sql(obj: Model, field_names: Sequence[str], connection: Any) -> tuple[str, list[Any]]:
    sql, savers = _update_statement(type(obj), tuple(field_names), connection.alias)
    return sql, _params([obj], savers)


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


@cache
def _update_if_unchanged_and_insert_statement(
    model: type[Model],
    field_names: tuple[str, ...],
    version_field: str,
    insert_model: type[Model],
    rows: int,
    alias: str,
) -> tuple[str, Callable[[Any], Any], _Savers]:
    """The PostgreSQL statement of `update_if_unchanged_and_insert`, the database value of a
    version, and how to get the values its INSERT takes from each row's instance (after the
    UPDATE's parameters and the version)."""
    connection = connections[alias]
    quote = connection.ops.quote_name
    update_sql, _ = _update_statement(model, field_names, alias)
    version_column = quote(model._meta.get_field(version_field).column)
    insert_into, fields = _insert_into(insert_model, connection)
    # Parameters in a SELECT get no type from the target columns: each is cast to its column's.
    row = ", ".join(f"CAST(%s AS {f.db_type(connection)})" for f in fields)
    selects = " UNION ALL ".join([f"SELECT {row} FROM updated"] * rows)
    sql = (
        f"WITH updated AS ({update_sql} AND {version_column} = %s RETURNING 1)"
        f" {insert_into} {selects}"
    )
    version_db_value = db_value_for_save(model._meta.get_field(version_field), alias)
    return sql, version_db_value, _savers(fields, alias, add=True)


def update_if_unchanged_and_insert(
    obj: Model, field_names: Sequence[str], version_field: str, version: Any, objs: Sequence[Model]
) -> bool:
    """UPDATE `obj`'s row as `update(obj, field_names)` does, but only if its `version_field`
    still holds `version`, and only then INSERT `objs`; returns whether it did.

    One statement on PostgreSQL, so one transaction of its own when none is open: the UPDATE
    locks the row and, if a concurrent writer changed it first, checks the version again on the
    row as that writer left it. Elsewhere, an UPDATE then an INSERT in one transaction.
    """
    connection = connections[router.db_for_write(type(obj))]
    update_sql, update_params = _update_sql(obj, field_names, connection)
    if connection.vendor != "postgresql":
        version_field = obj._meta.get_field(version_field)
        column = connection.ops.quote_name(version_field.column)
        version_param = version_field.get_db_prep_save(version, connection)
        with transaction.atomic(using=connection.alias):
            with connection.cursor() as cursor:
                cursor.execute(f"{update_sql} AND {column} = %s", [*update_params, version_param])
                if cursor.rowcount != 1:
                    return False
            insert(objs)
        return True
    sql, version_db_value, savers = _update_if_unchanged_and_insert_statement(
        type(obj), tuple(field_names), version_field, type(objs[0]), len(objs), connection.alias
    )
    params = [*update_params, version_db_value(version), *_params(objs, savers)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        inserted = cursor.rowcount
    if inserted != len(objs):
        return False
    _inserted(objs, connection)
    return True
