"""The image's static files, collected as the Dockerfile collects them and served as its CMD serves
them.

With DEBUG off, every page looks its static files up in the manifest that `collectstatic` writes
with the production storage: an image built without it answers every page with a 500 ("Missing
staticfiles manifest entry"). The build and the server's commands are read from the Dockerfile
itself, so that this tests what the image does, not a copy of it.
"""

import gzip
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
# The page links its stylesheet through `{% static %}`, which is where a missing manifest fails.
STYLESHEET = "css/site.css"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) for each instruction, continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).strip().partition(" ")
        instructions.append((keyword.upper(), arguments.strip()))
        pending = ""
    return instructions


def image_environment() -> dict[str, str]:
    """What the image's ENV instructions set (the `ENV NAME=value ...` form)."""
    environment: dict[str, str] = {}
    for keyword, arguments in dockerfile_instructions():
        if keyword == "ENV":
            environment.update(word.split("=", 1) for word in shlex.split(arguments))
    return environment


def collectstatic_step() -> tuple[dict[str, str], list[str]]:
    """The environment that the collectstatic RUN line sets for its command, and the command."""
    [arguments] = [
        arguments
        for keyword, arguments in dockerfile_instructions()
        if keyword == "RUN" and "collectstatic" in arguments
    ]
    words = shlex.split(arguments)
    assignments = []
    while "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        assignments.append(words.pop(0).split("=", 1))
    return dict(assignments), words


def serve_command() -> list[str]:
    [arguments] = [
        arguments for keyword, arguments in dockerfile_instructions() if keyword == "CMD"
    ]
    return json.loads(arguments)


def in_virtualenv(command: list[str]) -> list[str]:
    # The image installs the site's dependencies system-wide; here they are in this virtualenv.
    return [str(Path(sys.executable).with_name(command[0])), *command[1:]]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers), timeout=10
        ) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_static_files_are_collected_with_debug_off_and_a_key_kept_out_of_the_image_env():
    build_environment, _ = collectstatic_step()

    assert build_environment.get("DEBUG") == "0"
    assert build_environment.get("SECRET_KEY")
    assert "SECRET_KEY" not in image_environment()


@pytest.mark.slow
def test_the_image_serves_its_pages_and_hashed_static_files_with_debug_off(tmp_path):
    # The build sees neither this machine's environment nor a database; `.env` stays out too
    # (.dockerignore), but settings would read one from the project folder here.
    clean = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    static_root = tmp_path / "staticfiles"
    build_environment, build_command = collectstatic_step()
    # The build's collectstatic (compressing every file) and the database's migrate, each a few
    # CPU-seconds, run side by side: neither needs the other.
    collecting = subprocess.Popen(
        in_virtualenv(build_command),
        cwd=ROOT,
        env={**clean, **image_environment(), **build_environment, "STATIC_ROOT": str(static_root)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )

    port = free_port()
    production = {
        **clean,
        **image_environment(),
        "DEBUG": "0",
        "SECRET_KEY": "serve-time-test-key-not-the-build-one-and-long-enough-for-django-7Qx",
        "ALLOWED_HOSTS": "127.0.0.1",
        # No TLS terminator in front, as in docker-compose.yml.
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "STATIC_ROOT": str(static_root),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
    }
    try:
        migrated = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=production,
            capture_output=True,
            text=True,
            timeout=120,
        )
        collected_output, _ = collecting.communicate(timeout=120)
    finally:
        collecting.kill()
        collecting.wait()
    assert collecting.returncode == 0, collected_output
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr

    server_log = tmp_path / "server.log"
    with server_log.open("w") as log:
        server = subprocess.Popen(
            in_virtualenv(serve_command()),
            cwd=ROOT,
            env=production,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        site = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _, page = fetch(f"{site}/")
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the server did not start:\n{server_log.read_text()}")
                time.sleep(0.1)
        assert status == 200, server_log.read_text()
        manifest = json.loads((static_root / "staticfiles.json").read_text())
        hashed_stylesheet = manifest["paths"][STYLESHEET]
        stylesheet_status, stylesheet_headers, stylesheet = fetch(
            f"{site}/static/{hashed_stylesheet}"
        )
        # A slow phone's view: compressed, and a versioned file kept for as long as can be.
        _, zipped_page_headers, zipped_page = fetch(f"{site}/", **{"Accept-Encoding": "gzip"})
        _, zipped_headers, zipped_stylesheet = fetch(
            f"{site}/static/{hashed_stylesheet}", **{"Accept-Encoding": "gzip"}
        )
        _, plain_headers, _ = fetch(f"{site}/static/{STYLESHEET}")
    finally:
        server.terminate()
        server.wait(timeout=10)

    assert f'href="/static/{hashed_stylesheet}"'.encode() in page
    assert hashed_stylesheet != STYLESHEET
    assert stylesheet_status == 200
    assert stylesheet_headers["Content-Type"].startswith("text/css")
    assert stylesheet == (static_root / hashed_stylesheet).read_bytes()

    # Hashed names change with their content: a browser keeps them for years, unasked.
    cache_control = stylesheet_headers["Cache-Control"]
    assert "immutable" in cache_control
    assert int(re.search(r"max-age=(\d+)", cache_control)[1]) >= 365 * 24 * 60 * 60
    # The unversioned name may change under the same URL: kept briefly.
    assert int(re.search(r"max-age=(\d+)", plain_headers["Cache-Control"])[1]) <= 3600
    # WhiteNoise's precompressed file, not compressed again; the page compressed by the site.
    assert zipped_headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped_stylesheet) == stylesheet
    assert zipped_page_headers["Content-Encoding"] == "gzip"
    # (the same page but for its CSRF token, masked afresh in each answer)
    assert gzip.decompress(zipped_page)[:200] == page[:200]
