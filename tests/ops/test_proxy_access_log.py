"""The proxy's access log (deploy/nginx.conf's `$logged_uri`) leaves out the keys that paths carry
(a password reset's, an email confirmation's, an unsubscribe link's, a calendar feed's) and every
query string, as the error reports do (core/error_reports.py): the two lists are kept in step."""

from __future__ import annotations

import re
from pathlib import Path

from core.error_reports import FILTERED, SECRET_IN_PATH, scrub_path

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
