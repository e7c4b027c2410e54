#!/usr/bin/env bash
# Load a dump made by scripts/backup.sh into DATABASE_URL's PostgreSQL database, in one
# transaction (a restore that fails leaves the database as it was), made if it does not exist.
# A database that already holds tables is refused unless RESTORE_FORCE=1, which drops
# everything in its public schema first (in the same transaction). Stop the site and its workers before restoring over the
# database they use.
#
#   scripts/restore.sh backups/azul-20260101T030000Z.dump   (`make restore DUMP=...`)
#
# Then: `manage.py migrate` (if the code is newer than the dump), `manage.py check_game_logs`,
# `manage.py ratings_recompute` (README, "Backups").
set -euo pipefail

say() { echo "restore: $*" >&2; }
fail() {
    say "$*"
    exit 1
}

[ $# -eq 1 ] && [ -n "$1" ] || fail "usage: $0 DUMP (make restore DUMP=backups/<file>.dump)"
dump="$1"
[ -f "$dump" ] || fail "no dump at $dump"
pg_restore --list "$dump" >/dev/null 2>&1 ||
    fail "$dump is not a dump in pg_dump's custom format (scripts/backup.sh makes them)"

url="${DATABASE_URL:-}"
[ -n "$url" ] || fail "DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/azul)"
case "$url" in
postgres://* | postgresql://*) ;;
pgsql://* | psql://* | postgis://*) url="postgresql://${url#*://}" ;;
*) fail "DATABASE_URL is not a PostgreSQL database (${url%%:*})" ;;
esac
address="${url%%\?*}"
options="${url#"$address"}"
database="${address##*/}"
[ -n "$database" ] || fail "DATABASE_URL names no database"
host="${address#*://}"
host="${host##*@}"
host="${host%%/*}"
# The same server's maintenance database, to look for the target and make it.
maintenance="${address%/*}/postgres$options"

sql() { # sql URL [psql options...] < statements: one value, unaligned
    local target=$1
    shift
    psql --no-password --quiet --no-psqlrc --tuples-only --no-align --set ON_ERROR_STOP=1 \
        --dbname="$target" "$@"
}

if ! sql "$url" -c 'select 1' >/dev/null 2>&1; then
    exists="$(sql "$maintenance" --set name="$database" <<<"select count(*) from pg_database
        where datname = :'name'")" || fail "cannot reach the server $host as DATABASE_URL says"
    if [ "$exists" = 1 ]; then
        sql "$url" -c 'select 1' >/dev/null || fail "cannot connect to database $database on $host"
    fi
    sql "$maintenance" --set name="$database" <<<'create database :"name"' ||
        fail "cannot create database $database on $host"
    say "created database $database on $host"
fi

tables="$(sql "$url" <<<"select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
    and n.nspname not in ('pg_catalog', 'information_schema')
    and n.nspname not like 'pg\_toast%' and n.nspname not like 'pg\_temp%'")"
if [ "$tables" -gt 0 ]; then
    if [ "${RESTORE_FORCE:-0}" != 1 ]; then
        fail "database $database on $host is not empty ($tables tables and sequences); nothing" \
            "was changed. Restore into a new or empty database, or set RESTORE_FORCE=1 to drop" \
            "everything in it first."
    fi
    say "RESTORE_FORCE=1: everything in database $database on $host is dropped first"
    drop='set client_min_messages = warning; drop schema public cascade; create schema public;'
fi

# One transaction for the drop and the whole load. Owners and grants are the restoring role's:
# the dump may come from a server with other roles.
{
    echo "${drop:-}"
    pg_restore --no-owner --no-privileges --file=- "$dump"
} | sql "$url" --single-transaction --file=- >/dev/null ||
    fail "the restore failed; database $database was left as it was"
say "restored $dump into database $database on $host"
say "next: manage.py migrate (if the code is newer), check_game_logs, ratings_recompute"
