"""The client's address, as far as it can be trusted: the one place that says which.

With TRUSTED_PROXY_COUNT = 0 (the default: nothing stands in front of the site) it is the
connection's address, REMOTE_ADDR, and any X-Forwarded-For is ignored: a client can write
whatever it likes there, a new address per request. Behind N proxies that each append the
address they received the request from (deploy/nginx.conf: `$proxy_add_x_forwarded_for`), it
is the Nth entry from the right of X-Forwarded-For, the one our outermost proxy wrote; what the
client wrote itself stands further left and is not read.

django-axes reads it through AXES_CLIENT_IP_CALLABLE and allauth through the account adapter
(`get_client_ip`); DRF's throttles apply the same rule from the same setting (NUM_PROXIES)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    remote = request.META.get("REMOTE_ADDR")
    proxies = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote
    addresses = [part.strip() for part in forwarded.split(",")]
    # As DRF's NUM_PROXIES does: a shorter header than expected gives its first entry.
    return addresses[-min(proxies, len(addresses))] or remote
