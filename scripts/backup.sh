#!/usr/bin/env bash
# A dump of DATABASE_URL's PostgreSQL database in pg_dump's custom format (restore it with
# scripts/restore.sh), written to BACKUP_DIR and checked readable before it gets its name; then
# the dumps of that database older than BACKUP_KEEP_DAYS days are deleted (never after a failed
# dump). Prints the new dump's path on stdout, everything else on stderr.
#
#   scripts/backup.sh                  one dump (`make backup`)
#   scripts/backup.sh --every SECONDS  a dump whenever the newest one is SECONDS old, until
#                                      stopped (docker-compose.yml's backup service)
#
# Settings (environment): DATABASE_URL (required), BACKUP_DIR (default backups),
# BACKUP_KEEP_DAYS (default 14; 0 keeps every dump), BACKUP_RETRY_SECONDS (default 300: the wait
# after a failed dump in the --every loop).
set -euo pipefail

say() { echo "backup: $*" >&2; }
fail() {
    say "$*"
    exit 1
}

every=""
case "${1:-}" in
"") ;;
--every)
    every="${2:-}"
    [[ "$every" =~ ^[1-9][0-9]*$ ]] || fail "--every takes a number of seconds, got '${every}'"
    ;;
*) fail "usage: $0 [--every SECONDS]" ;;
esac

url="${DATABASE_URL:-}"
[ -n "$url" ] || fail "DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/azul)"
# django-environ's other names for PostgreSQL; libpq knows these two.
case "$url" in
postgres://* | postgresql://*) ;;
pgsql://* | psql://* | postgis://*) url="postgresql://${url#*://}" ;;
*) fail "DATABASE_URL is not a PostgreSQL database (${url%%:*}); for SQLite, copy its file" ;;
esac
address="${url%%\?*}"
database="${address##*/}"
[ -n "$database" ] || fail "DATABASE_URL names no database"
host="${address#*://}"
host="${host##*@}"
host="${host%%/*}"

dir="${BACKUP_DIR:-backups}"
keep_days="${BACKUP_KEEP_DAYS:-14}"
retry="${BACKUP_RETRY_SECONDS:-300}"
[[ "$keep_days" =~ ^[0-9]+$ ]] || fail "BACKUP_KEEP_DAYS is a number of days, got '$keep_days'"
[[ "$retry" =~ ^[1-9][0-9]*$ ]] || fail "BACKUP_RETRY_SECONDS is a number, got '$retry'"
# A dump holds every account's email address and password hash: readable by its owner only.
umask 077
mkdir -p "$dir" || fail "cannot make the folder $dir"

# Stopped (docker stop, Ctrl-C): no half-written dump is left behind, and no wait holds it up.
child=""
partial=""
stop() {
    if [ -n "$child" ]; then kill "$child" 2>/dev/null || true; fi
    if [ -n "$partial" ]; then rm -f "$partial"; fi
    say "stopped"
    exit 143
}
trap stop TERM INT

run() { # run COMMAND...: in the background, so that a signal is handled at once
    "$@" &
    child=$!
    local status=0
    wait "$child" || status=$?
    child=""
    return "$status"
}

backup_once() {
    local stamp target n=1
    stamp="$(date -u +%Y%m%dT%H%M%SZ)"
    target="$dir/$database-$stamp.dump"
    while [ -e "$target" ]; do
        target="$dir/$database-$stamp-$n.dump"
        n=$((n + 1))
    done
    partial="$target.partial"
    if ! run pg_dump --format=custom --no-password --file="$partial" --dbname="$url"; then
        rm -f "$partial"
        partial=""
        say "pg_dump of database $database on $host failed; the older dumps are kept"
        return 1
    fi
    if ! run pg_restore --list "$partial" >/dev/null; then
        rm -f "$partial"
        partial=""
        say "the dump of database $database is unreadable; the older dumps are kept"
        return 1
    fi
    mv "$partial" "$target"
    partial=""
    say "dumped database $database on $host ($(du -h "$target" | cut -f1))"
    echo "$target"
    prune
}

prune() {
    # Half-written dumps of a run that was killed outright.
    find "$dir" -maxdepth 1 -type f -name "$database-*.dump.partial" -mmin +1440 -delete
    [ "$keep_days" -gt 0 ] || return 0
    local old
    while IFS= read -r old; do
        rm -f "$old"
        say "deleted $old (older than $keep_days days)"
    done < <(find "$dir" -maxdepth 1 -type f -name "$database-*.dump" -mmin +$((keep_days * 1440)))
}

seconds_until_due() { # from the newest dump's age, so that a restart does not dump again
    local newest
    newest="$(find "$dir" -maxdepth 1 -type f -name "$database-*.dump" -printf '%T@ %p\n' |
        sort -n | tail -n 1 | cut -d' ' -f1)"
    if [ -z "$newest" ]; then
        echo 0
    else
        echo $((${newest%.*} + every - $(date +%s)))
    fi
}

if [ -z "$every" ]; then
    backup_once
    exit
fi

say "a dump of database $database every $every s into $dir, kept $keep_days days"
while true; do
    wait_seconds="$(seconds_until_due)"
    if [ "$wait_seconds" -le 0 ]; then
        if backup_once; then continue; fi
        wait_seconds="$retry"
        say "next try in $retry s"
    fi
    run sleep "$wait_seconds"
done
