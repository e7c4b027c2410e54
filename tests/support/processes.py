"""Python run in a process of its own with the site's settings: for what a test process cannot
show (settings read once at start-up, a database away, an SDK set up on import)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_with_settings(
    code: str, env: dict[str, str] | None = None, *, without: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    """Runs `code` with `python -c` in the project folder under `azul_site.settings`: this
    process's environment less the variables whose names start with one of `without`, plus
    `env`. Its output is captured as text."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if not any(name.startswith(prefix) for prefix in without)
    }
    environment.update(env or {}, DJANGO_SETTINGS_MODULE="azul_site.settings")
    return subprocess.run(
        [sys.executable, "-c", code],
        env=environment,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
