"""The settings module as a deployment sees it, in a fresh interpreter with a clean environment."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
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
