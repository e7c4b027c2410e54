"""The proxy's access log (deploy/nginx.conf's `$logged_uri`) leaves out the keys that paths carry
(a password reset's, an email confirmation's, an unsubscribe link's, a calendar feed's) and every
query string, as the error reports do (core/ops/error_reports.py): the two lists are kept in step.
Each line ends with the request's id, which the proxy sends to the site (#66)."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from core.ops.error_reports import FILTERED, SECRET_IN_PATH, scrub_path
from core.ops.log_context import REQUEST_ID_FORMAT
from tests.support.outage import closed_port

CONF = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf"
KEY = "Zk3-9qR_secret.ics"


def logged_uri(request_uri: str) -> str:
    """What nginx's map makes of a request's URI: its regexes, in order, run by Python (the two
    used here mean the same in PCRE and in Python's `re`)."""
    block = re.search(r"map \$request_uri \$logged_uri \{(.*?)\n\}", CONF.read_text(), re.S)
    assert block, "deploy/nginx.conf has no $logged_uri map"
    for pattern, value in re.findall(r'"~([^"]+)"\s+"?([^";]+)"?;', block.group(1)):
        if match := re.search(pattern, request_uri):
            return re.sub(r"\$(\d)", lambda m: match.group(int(m.group(1))) or "", value)
    return request_uri


def test_the_access_log_format_uses_the_scrubbed_uri():
    conf = CONF.read_text()
    assert re.search(r"log_format scrubbed [^;]*\$logged_uri", conf)
    assert re.search(r"access_log \S+ scrubbed;", conf)
    assert "$request_uri" not in re.search(r"log_format scrubbed [^;]*;", conf, re.S).group(0)


def test_every_secret_path_is_logged_without_its_key_as_error_reports_scrub_it():
    prefixes = re.findall(r"/[a-z/-]+/", SECRET_IN_PATH.pattern)
    assert len(prefixes) == 4
    for prefix in prefixes:
        uri = f"{prefix}{KEY}/?next=/games/"
        logged = logged_uri(uri)
        assert KEY not in logged and "next" not in logged, logged
        assert logged == scrub_path(uri).replace(FILTERED, "[Filtered]") == f"{prefix}[Filtered]/"


def test_other_paths_are_logged_whole_but_for_their_query():
    assert logged_uri("/games/42/?token=abc") == "/games/42/"
    assert logged_uri("/api/games/") == "/api/games/"


def test_the_proxy_sends_its_request_id_to_every_location_and_logs_it():
    conf = CONF.read_text()
    server = conf[conf.index("server {") :]
    first_location = server.index("location ")
    assert "proxy_set_header X-Request-ID $request_id;" in server[:first_location]
    # A location with a proxy_set_header of its own would keep none of the server's.
    assert "proxy_set_header" not in server[first_location:]
    assert "$request_id" in re.search(r"log_format scrubbed [^;]*;", conf, re.S).group(0)
    # nginx's ids (32 hexadecimal digits) are ones the site takes.
    assert REQUEST_ID_FORMAT.fullmatch("0f3c2a9be1d84c5f9a7e6b1d2c3e4f50")


NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")


def nginx_in_front_of(site: str, folder: Path) -> tuple[subprocess.Popen, int, Path]:
    """deploy/nginx.conf served by a real nginx on a free port, its upstreams all `site`
    (host:port), its access log in `folder`: (the process, its port, its access log)."""
    port = closed_port()
    access_log = folder / "access.log"
    conf = (
        CONF.read_text()
        .replace("web:8000", site)
        .replace("live:8001", site)
        .replace("listen 8000;", f"listen 127.0.0.1:{port};")
        .replace("/var/log/nginx/access.log", str(access_log))
    )
    (folder / "site.conf").write_text(conf)
    assert NGINX is not None
    temp = "".join(
        f"{kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (folder / "nginx.conf").write_text(
        f"daemon off; master_process off; pid {folder / 'nginx.pid'};"
        f" error_log {folder / 'error.log'};"
        f" events {{}} http {{ {temp} include {folder / 'site.conf'}; }}"
    )
    process = subprocess.Popen(
        [
            NGINX,
            "-p",
            str(folder),
            "-e",
            str(folder / "error.log"),
            "-c",
            str(folder / "nginx.conf"),
        ]
    )
    return process, port, access_log


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (Debian's nginx-light)")
@pytest.mark.django_db(transaction=True)
def test_nginx_makes_the_id_the_site_answers_and_logs_it(live_server, tmp_path):
    process, port, access_log = nginx_in_front_of(urlsplit(live_server.url).netloc, tmp_path)
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/healthz",
            # The proxy's id replaces whatever the client sent.
            headers={"Host": "localhost", "X-Request-ID": "chosen-by-the-client"},
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    rid = response.headers["X-Request-ID"]
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)
    finally:
        process.terminate()
        process.wait(timeout=10)

    assert re.fullmatch(r"[0-9a-f]{32}", rid), rid
    # The site answered the proxy's id: the one the proxy's line ends with.
    (line,) = access_log.read_text().splitlines()
    assert '"GET /healthz" 200' in line and line.endswith(f" {rid}"), line
