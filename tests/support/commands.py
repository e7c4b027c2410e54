"""The Makefile's targets run as an operator runs them, from a test: `make <target>` with the
venv the suite runs in (`-o venv`: a test never reinstalls it; `make test` set it up), in an
environment without the suite's own (the outer `make test`'s flags, pytest's variables)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAKE = ["make", "-s", "--no-print-directory", "-f", str(ROOT / "Makefile"), "-o", "venv"]
MAKE += [f"VENV={Path(sys.executable).parents[1]}"]


def command_env(**extra: str) -> dict[str, str]:
    """This process's environment without the suite's own variables, plus `extra`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "MAKE", "MFLAGS"))
    }
    return {**env, "PYTHONUNBUFFERED": "1", **extra}


def make(
    target: str,
    *variables: str,
    timeout: float = 300,
    cwd: Path = ROOT,
    check: bool = True,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """`make <target> <variables>` from the project folder (or `cwd`) with `env` added, once it
    has exited (with 0, unless `check` is false)."""
    run = subprocess.run(
        [*MAKE, target, *variables],
        cwd=cwd,
        env=command_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert run.returncode == 0 or not check, (
        f"exit {run.returncode}\n{run.stdout[-5000:]}\n{run.stderr[-5000:]}"
    )
    return run


def start_make(target: str, log: Path, *variables: str, **env: str) -> subprocess.Popen:
    """`make <target>` left running in a process group of its own (`stop` ends it whole), its
    output in `log`."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [*MAKE, target, *variables],
            cwd=ROOT,
            env=command_env(**env),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def read_until(log: Path, process: subprocess.Popen, wanted: str, seconds: float) -> str:
    """The text of `log` once it holds `wanted`, within `seconds`, while `process` runs."""
    deadline = time.monotonic() + seconds
    while True:
        text = log.read_text(errors="replace")
        if wanted in text:
            return text
        assert process.poll() is None, f"exited {process.returncode}:\n{text[-4000:]}"
        assert time.monotonic() < deadline, f"no {wanted!r} within {seconds} s:\n{text[-4000:]}"
        time.sleep(0.2)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the process's group; after it ended (30 s at most), SIGKILL to what is left."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=30)
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
