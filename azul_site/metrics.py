"""/metrics, in Prometheus' text format, for the scraper alone: django-prometheus' request
metrics and the site's own (core.ops.metrics), and what is read when it scrapes: the depth of each
task queue (from the broker) and the outbox's backlog (from the notifications table).

Not public: answered only to the addresses of METRICS_ALLOWED_IPS (loopback by default) or to a
request bearing METRICS_TOKEN. Any other request gets a 404, as for a page that does not exist;
one with a wrong token, 403.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Iterator
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Min
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from core.ops import metrics
from notifications.models import Notification

logger = logging.getLogger(__name__)

QUEUE_READ_TIMEOUT = 0.25
"""Seconds the scrape waits for the broker: a broker down or hung costs the scrape this, and
shows as `azul_broker_up 0`."""

PRIORITY_SEPARATOR = "\x06\x16"
"""kombu's Redis transport keeps a queue's messages of priority p > 0 in the list
`<queue>\\x06\\x16<p>`; a queue's depth is the sum of its lists."""
PRIORITY_STEPS = (3, 6, 9)


class QueueDepthCollector(Collector):
    """The messages waiting in each of the workers' queues (settings.WORKER_QUEUES), read from
    the Redis broker at scrape time; without a Redis broker (tasks run in-process), nothing."""

    def collect(self) -> Iterator[Metric]:
        url = settings.CELERY_BROKER_URL
        if not url.startswith(("redis://", "rediss://", "unix://")):
            return
        import redis

        up = GaugeMetricFamily(
            "azul_broker_up", "1 when the task broker answered this scrape, 0 when it did not."
        )
        depth = GaugeMetricFamily(
            "azul_queue_depth", "Tasks waiting in each queue of the broker.", labels=["queue"]
        )
        client = redis.Redis.from_url(
            url,
            socket_timeout=QUEUE_READ_TIMEOUT,
            socket_connect_timeout=QUEUE_READ_TIMEOUT,
            retry_on_timeout=False,
        )
        try:
            with client.pipeline(transaction=False) as pipe:
                for queue in settings.WORKER_QUEUES:
                    pipe.llen(queue)
                    for step in PRIORITY_STEPS:
                        pipe.llen(f"{queue}{PRIORITY_SEPARATOR}{step}")
                lengths = pipe.execute()
        except (redis.RedisError, OSError):
            up.add_metric([], 0)
            yield up
            return
        finally:
            client.close()
        lists_per_queue = 1 + len(PRIORITY_STEPS)
        for index, queue in enumerate(settings.WORKER_QUEUES):
            start = index * lists_per_queue
            depth.add_metric([queue], sum(lengths[start : start + lists_per_queue]))
        up.add_metric([], 1)
        yield up
        yield depth


class OutboxCollector(Collector):
    """The outbox's backlog: emails due and not sent, by kind, and how long the oldest has been
    due. Read at scrape time from the pending rows alone (the partial index
    `notification_due_idx`), never from the sent ones, which are most of the table. Failures
    are counted as they happen (`azul_outbox_failures_total`)."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        try:
            rows = list(
                Notification.objects.filter(status=Notification.Status.PENDING, send_after__lte=now)
                .values("kind")
                .annotate(due=Count("pk"), oldest=Min("send_after"))
                .order_by()
            )
        except DatabaseError as exc:
            # The database's outage shows elsewhere (/readyz, the request errors): one line.
            logger.warning("metrics: could not read the outbox: %s", exc)
            return
        backlog = GaugeMetricFamily(
            "azul_outbox_due",
            "Emails of the outbox due to be sent and not sent yet, by kind.",
            labels=["kind"],
        )
        oldest = GaugeMetricFamily(
            "azul_outbox_oldest_due_seconds",
            "How long the outbox's oldest email due has waited past its time (0: none waits).",
        )
        counts = {row["kind"]: row["due"] for row in rows}
        for kind in Notification.Kind.values:
            backlog.add_metric([kind], counts.get(kind, 0))
        due_since: list[datetime] = [row["oldest"] for row in rows]
        oldest.add_metric([], (now - min(due_since)).total_seconds() if due_since else 0.0)
        yield backlog
        yield oldest


def allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(entry, strict=False) for entry in settings.METRICS_ALLOWED_IPS]


def from_allowed_address(request: HttpRequest) -> bool:
    """Whether the request's connection comes from METRICS_ALLOWED_IPS: the peer's own address
    (REMOTE_ADDR), never a forwarded one, which a client can write."""
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in allowed_networks())


def bearer_token(request: HttpRequest) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def exposition() -> bytes:
    """The metrics' text: this process's (or all the processes' of the folder), then what is
    read at scrape time."""
    read_now = CollectorRegistry(auto_describe=False)
    read_now.register(QueueDepthCollector())
    read_now.register(OutboxCollector())
    counted = metrics.multiprocess_registry() or REGISTRY
    return generate_latest(counted) + generate_latest(read_now)


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    token = bearer_token(request)
    if token is not None and settings.METRICS_TOKEN:
        if not hmac.compare_digest(token.encode(), settings.METRICS_TOKEN.encode()):
            return HttpResponseForbidden("Wrong metrics token.", content_type="text/plain")
    elif not from_allowed_address(request):
        if token is not None:
            return HttpResponseForbidden("Wrong metrics token.", content_type="text/plain")
        raise Http404()
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
