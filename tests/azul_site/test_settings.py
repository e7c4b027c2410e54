"""The settings module as a deployment sees it, in a fresh interpreter with a clean environment."""

import gc
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "x7Qe9-not-a-real-key-but-long-and-random-enough-for-the-check-3fK",
    "ALLOWED_HOSTS": "azul.example.com",
}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "DATABASE_URL"}}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_production_refuses_to_start_without_secret_key():
    result = manage("check", DEBUG="0", ALLOWED_HOSTS="azul.example.com")

    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


@pytest.mark.slow
def test_production_settings_pass_the_deployment_checklist():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION_ENV)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.slow
def test_gunicorn_serves_the_site_with_synchronous_workers():
    base = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "DATABASE_URL"}}
    gunicorn = [str(Path(sys.executable).with_name("gunicorn")), "-c", "gunicorn.conf.py"]
    env = {**base, **PRODUCTION_ENV}

    check = subprocess.run(
        [*gunicorn, "--check-config", "azul_site.wsgi"], cwd=ROOT, env=env, capture_output=True
    )

    def printed(**overrides: str) -> dict[str, str]:
        out = subprocess.run(
            [*gunicorn, "--print-config", "azul_site.wsgi"],
            cwd=ROOT,
            env={**env, **overrides},
            capture_output=True,
            text=True,
        ).stdout
        return dict(
            (name.strip(), value.strip())
            for name, _, value in (line.partition("=") for line in out.splitlines())
        )

    assert check.returncode == 0, check.stderr
    config = printed(WEB_CONCURRENCY="7")
    assert (config["worker_class"], config["threads"], config["workers"]) == ("sync", "1", "7")
    threaded = printed(GUNICORN_THREADS="4")
    assert (threaded["worker_class"], threaded["threads"]) == ("gthread", "4")


def test_a_gunicorn_worker_freezes_its_heap_once_warmed_up():
    config: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), config)
    warm = config["FREEZE_AFTER_REQUESTS"]
    worker = SimpleNamespace(nr=warm - 1)
    try:
        config["post_request"](worker, None, {}, None)
        assert gc.get_freeze_count() == 0
        worker.nr = warm
        config["post_request"](worker, None, {}, None)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
