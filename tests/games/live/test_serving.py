"""How the waits are served: the live process's gunicorn settings, and the proxy's routes
(deploy/nginx.conf) kept in step with the site's URLs."""

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[3]


def gunicorn_config(app: str, **env: str) -> tuple[int, dict[str, str], str]:
    base = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "DATABASE_URL"}}
    gunicorn = [str(Path(sys.executable).with_name("gunicorn")), "-c", "gunicorn.conf.py"]
    check = subprocess.run(
        [*gunicorn, "--check-config", app], cwd=ROOT, env={**base, **env}, capture_output=True
    )
    out = subprocess.run(
        [*gunicorn, "--print-config", app],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
    ).stdout
    config = dict(
        (name.strip(), value.strip())
        for name, _, value in (line.partition("=") for line in out.splitlines())
    )
    return check.returncode, config, check.stderr.decode()


@pytest.mark.slow
def test_the_live_process_runs_the_asgi_application_on_uvicorn_workers():
    code, config, errors = gunicorn_config(
        "azul_site.asgi:application",
        GUNICORN_WORKER_CLASS="azul_site.live_worker.LiveWorker",
        WEB_CONCURRENCY="1",
    )
    assert code == 0, errors
    assert config["worker_class"] == "azul_site.live_worker.LiveWorker"
    assert config["workers"] == "1"


def test_the_proxy_sends_the_waits_to_the_live_process():
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    routes = dict(re.findall(r"location ~ (\S+) \{\s*proxy_pass http://\$?(\w+);", conf))
    game = uuid.uuid4()

    def route(path: str) -> str | None:
        return next((to for pattern, to in routes.items() if re.search(pattern, path)), None)

    assert route(reverse("games:live", args=[game])) == "live"
    assert route(reverse("games_api:game", args=[game])) == "game_api"  # by wait_for_turn:
    assert re.search(r'map \$arg_wait_for_turn \$game_api \{\s*""\s+web;\s*default\s+live;', conf)
    for path in (
        reverse("games:board", args=[game]),
        reverse("games:detail", args=[game]),
        reverse("games_api:moves", args=[game]),
        reverse("games_api:games"),
    ):
        assert route(path) is None, path  # the site's own: `location /`
