# The index of commands. Every target sets up .venv itself (re-installing only when
# pyproject.toml or the lock changed), so `make run` and `make test` work on a fresh machine.

PYTHON ?= python3
VENV ?= .venv
HOST ?= 127.0.0.1
PORT ?= 8000
# Tests run on PostgreSQL; pytest-django creates (and drops) test_azul_gw0 and test_azul_gw1.
DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/azul
PYTEST_ARGS ?=
# The suite runs in two processes (pytest-xdist): about 10.5 minutes on two cores from a fresh
# clone (2,664 tests; `make test-quick`, without the slow and browser ones, 2,470 in under 3).
# PYTEST_WORKERS=0 runs it in this process (for --pdb, or one quick test).
PYTEST_WORKERS ?= 2
# Work stealing: each process starts on half the tests and takes from the other's when it runs
# out, so both end together. xdist's default (`load`) left the last minute's tests (the README
# commands' tests) queued behind one process while the other stood idle: 624 s -> 586 s of
# pytest, measured back to back.
PYTEST_DIST ?= worksteal
CELERY_ARGS ?= --loglevel=INFO
# Python keeps its compiled modules (__pycache__) for every command run from here, whatever the
# shell says: with PYTHONDONTWRITEBYTECODE set, each process compiled the site's modules again
# (measured: collecting the suite 13 s of CPU without the caches, 5 s with them; a site process's
# start 1.6-1.9 s against 1.4-1.5), and the suite starts hundreds of them.
unexport PYTHONDONTWRITEBYTECODE

BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The versions and hashes every install takes (`make lock` writes them from pyproject.toml):
# the site's own in LOCK, the site's and the dev extra's in DEV_LOCK, at the same versions.
LOCK := requirements/lock.txt
DEV_LOCK := requirements/dev-lock.txt
UPGRADE ?=

.PHONY: venv lock run test test-quick lint fmt bench bench-web bench-sweep bench-history bench-computer bench-live bench-reach bench-swiss bench-league bench-events abuse soak worker worker-moves worker-slow worker-master worker-mail worker-sweeps worker-analysis screenshots messages backup restore schemathesis

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The locked versions (hashes checked), then the site itself without resolving anything more;
# `uv pip check` fails when pyproject.toml asks for what the lock lacks (then run `make lock`).
# uv installs them (16 s on a fresh clone here, where pip took 50 s): first uv itself, at the
# lock's version and hashes, by pip; then the lock, compiled to bytecode as pip did.
UV_LOCK := $(VENV)/uv-lock.txt
$(STAMP): pyproject.toml $(DEV_LOCK) | $(BIN)/python
	awk '/^uv==/ {found = 1; print; next} found && /^[^ ]/ {exit} found' $(DEV_LOCK) > $(UV_LOCK)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(UV_LOCK)
	$(BIN)/uv pip sync --quiet --python $(BIN)/python --require-hashes --compile-bytecode $(DEV_LOCK)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	$(BIN)/uv pip check --quiet --python $(BIN)/python
	touch $@

venv: $(STAMP)

# Re-solve the locks from pyproject.toml, keeping every locked version that still fits;
# UPGRADE=1 takes the newest versions allowed. For every platform and Python >= 3.11. uv comes
# with the dev extra (or is installed here when the venv predates it).
LOCK_ARGS = --universal --python-version 3.11 --generate-hashes --quiet \
	--custom-compile-command 'make lock' $(if $(UPGRADE),--upgrade)
lock: | $(BIN)/python  ## Update requirements/ (the locked versions) from pyproject.toml; UPGRADE=1 for the newest
	test -x $(BIN)/uv || $(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --extra dev $(LOCK_ARGS) -o $(DEV_LOCK)
	$(BIN)/uv pip compile pyproject.toml -c $(DEV_LOCK) $(LOCK_ARGS) -o $(LOCK)

run: venv  ## Development server on SQLite with tasks run in-process (unless the env says otherwise)
	$(BIN)/python manage.py migrate --noinput
	# The minute's sweep (deadlines, reminders, pending mail) beside the server, stopped with it.
	$(BIN)/python manage.py sweep --every 60 & sweeper=$$!; \
	trap 'kill $$sweeper 2>/dev/null' EXIT INT TERM; \
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: venv lint  ## Lint, then the whole test suite on PostgreSQL
	DATABASE_URL='$(DATABASE_URL)' $(BIN)/pytest -n $(PYTEST_WORKERS) --dist $(PYTEST_DIST) $(PYTEST_ARGS)

# The inner loop while working: no lint, and none of the tests marked slow (servers, workers,
# the soak, the benchmarks' commands) or e2e (the browser), so it answers in a few minutes;
# `make test` (and CI) runs them all.
test-quick: venv  ## The suite without its slow and browser tests (no lint): a few minutes
	DATABASE_URL='$(DATABASE_URL)' $(BIN)/pytest -n $(PYTEST_WORKERS) --dist $(PYTEST_DIST) -m "not slow and not e2e" $(PYTEST_ARGS)

lint: venv  ## Style (ruff), the import contracts (lint-imports) and the types (mypy): pyproject.toml
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

# SCREENSHOTS_ARGS='--out <folder>' writes them elsewhere (as CI does).
SCREENSHOTS_ARGS ?=
screenshots: venv  ## The README's screenshots of the board (docs/screenshots/), through Chromium
	DATABASE_URL='$(DATABASE_URL)' $(BIN)/python scripts/screenshots.py $(SCREENSHOTS_ARGS)

# Translations: the languages besides English (settings.LANGUAGES), and what makemessages skips
# (tests/i18n/test_catalog.py runs it with the same arguments).
LOCALES ?= ko
MESSAGES_ARGS := --no-obsolete --ignore=staticfiles --ignore=artifacts --ignore=tests \
	--ignore=scripts --ignore=docs

messages: venv  ## Update locale/ from the marked strings (new ones to translate), then compile (needs gettext)
	$(BIN)/python manage.py makemessages --domain django $(LOCALES:%=--locale %) $(MESSAGES_ARGS)
	$(BIN)/python manage.py makemessages --domain djangojs $(LOCALES:%=--locale %) $(MESSAGES_ARGS)
	$(BIN)/python manage.py compilemessages $(LOCALES:%=--locale %) --ignore='.*'

fmt: venv
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The benchmarks' sizes and durations are their scripts' options (`--help`), passed in BENCH_ARGS:
# `make bench-sweep BENCH_ARGS='--games 1000'`. CI runs each at a toy size
# (tests/ops/test_readme_commands.py).
BENCH_ARGS ?=
bench: venv  ## Rules-engine benchmark
	$(BIN)/python -m research.bench $(BENCH_ARGS)

bench-web: venv  ## Web-layer benchmark
	$(BIN)/python scripts/bench_web.py $(BENCH_ARGS)

bench-sweep: venv  ## Deadline sweep over 100,000 active games on PostgreSQL
	$(BIN)/python scripts/bench_sweep.py $(BENCH_ARGS)

bench-history: venv  ## Leaderboard and history over 10,000 players and 100,000 finished games
	$(BIN)/python scripts/bench_history.py $(BENCH_ARGS)

bench-computer: venv  ## Computer's answer to a move, through a Celery worker and Redis
	$(BIN)/python scripts/bench_computer.py $(BENCH_ARGS)

bench-live: venv  ## Live updates: a move to the open boards, and how many boards one live process holds
	$(BIN)/python scripts/bench_live.py $(BENCH_ARGS)

bench-swiss: venv  ## Pairing a Swiss round of 1,000 players (2 and 4 a table): time and repeat meetings
	$(BIN)/python scripts/bench_swiss.py $(BENCH_ARGS)

# On a database of its own (BENCH_EVENTS_DATABASE_URL), made for the run and dropped after it.
bench-events: venv  ## A 64-player Swiss and a 32-player round robin played to their end by computer players
	$(BIN)/python scripts/bench_events.py $(BENCH_ARGS)

bench-league: venv  ## A league of 200 players rolled over to its next season: time and the divisions formed
	$(BIN)/python scripts/bench_league.py $(BENCH_ARGS)

# The API against its schema (/api/schema/) with schemathesis.toml's checks, on a running site
# (`make test` runs it on gunicorn and the test database: tests/azul_site/test_api_schemathesis.py).
# It acts as the owner of AZUL_API_TOKEN (a token from the settings page): it creates, resigns and
# cancels games and blocks players, so use a test account on a site of your own. Requests go at
# the API's per-player rate (API_THROTTLE_USER).
SCHEMATHESIS_URL ?= http://$(HOST):$(PORT)
SCHEMATHESIS_ARGS ?= --rate-limit 10/s
schemathesis: venv  ## The API against its schema on a running site (AZUL_API_TOKEN=..., SCHEMATHESIS_URL=...)
	@test -n "$$AZUL_API_TOKEN" || { echo "make schemathesis: set AZUL_API_TOKEN" >&2; exit 2; }
	$(BIN)/st run '$(SCHEMATHESIS_URL)/api/schema/' $(SCHEMATHESIS_ARGS)

# Not part of `make test`: it starts the whole stack (site, live process, a worker per queue, an
# SMTP sink) on PostgreSQL and Redis, and takes a few minutes. ABUSE_ARGS=--quick for a short one.
ABUSE_ARGS ?=
abuse: venv  ## The review's floods by a hostile account, and what another player sees meanwhile (issue #28)
	$(BIN)/python scripts/abuse.py $(ABUSE_ARGS)

# Not part of `make test` either: six players play through the API on the whole stack (its own
# database azul_soak and Redis) while its parts are killed and restarted in turn, then nothing may
# be lost (scripts/soak.py). Ten minutes; CI runs `--fault-gap 2`: each fault once, one after the
# other, about 80 s (tests/ops/test_soak.py).
SOAK_ARGS ?=
bench-reach: venv  ## A move to the other player's push notice and webhook call, through the real stack (#35)
	$(BIN)/python scripts/bench_reach.py $(BENCH_ARGS)

soak: venv  ## Players on the real stack while its parts are killed in turn; then nothing may be lost (#31)
	$(BIN)/python scripts/soak.py $(SOAK_ARGS)

# Backups of DATABASE_URL's PostgreSQL database in pg_dump's custom format (README, "Backups"):
# docker-compose.yml's backup service runs the same script on a schedule.
BACKUP_DIR ?= backups
DUMP ?=
backup:  ## Dump the database to BACKUP_DIR (backups/), deleting dumps older than BACKUP_KEEP_DAYS (14)
	DATABASE_URL='$(DATABASE_URL)' BACKUP_DIR='$(BACKUP_DIR)' scripts/backup.sh

restore:  ## Load DUMP=backups/<file>.dump into the database (new or empty, or RESTORE_FORCE=1)
	DATABASE_URL='$(DATABASE_URL)' scripts/restore.sh '$(DUMP)'

worker: venv  ## Celery worker of every queue, for development (needs CELERY_BROKER_URL or REDIS_URL)
	$(BIN)/celery -A azul_site worker $(CELERY_ARGS)

worker-moves: venv  ## The worker of the quick computer levels' moves (and Celery's default queue)
	$(BIN)/celery -A azul_site worker -Q moves,celery -n moves@%h $(CELERY_ARGS)

worker-slow: venv  ## The worker of the strong computer's moves: a lane fair between players
	$(BIN)/celery -A azul_site worker -Q slow_moves --concurrency 1 -n slow@%h $(CELERY_ARGS)

worker-master: venv  ## The worker of the master computer's moves: a lane fair between players
	$(BIN)/celery -A azul_site worker -Q master_moves --concurrency 1 -n master@%h $(CELERY_ARGS)

worker-mail: venv  ## The emails' worker: never behind a computer move
	$(BIN)/celery -A azul_site worker -Q mail --concurrency 2 -n mail@%h $(CELERY_ARGS)

worker-sweeps: venv  ## The minute's sweeps and the timeout moves they send
	$(BIN)/celery -A azul_site worker -Q sweeps --concurrency 2 -n sweeps@%h $(CELERY_ARGS)

worker-analysis: venv  ## The post-game analyses' worker: its own queue, one at a time, at low priority
	nice -n 10 $(BIN)/celery -A azul_site worker -Q analysis --concurrency 1 -n analysis@%h $(CELERY_ARGS)
