"""A webhook's "send a test" through a real Celery worker and Redis broker: the request only
asks (202), the worker calls the webhook (a real HTTP server on 127.0.0.1), and the test's
status, which the settings page asks for, then says what the webhook answered."""

import pytest

from notifications.webhooks import services as webhook_services
from tests.support.http_sink import HttpSink
from tests.support.workers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_worker_sends_the_test_and_its_answer_shows_when_it_comes(
    redis_server, start_worker, api_client_for, alice
):
    with HttpSink() as sink:
        sink.answer(204)
        hook = webhook_services.webhook_create(
            user_id=alice.pk, name="Hook", url=sink.url + "/hook", style="json"
        )
        worker = start_worker(
            redis_server.url, OUTBOUND_ALLOWED_NETWORKS="127.0.0.1/32", OUTBOUND_ALLOW_HTTP="1"
        )
        client = api_client_for(alice)
        asked = client.post(f"/api/webhooks/{hook.pk}/test/")
        assert asked.status_code == 202
        assert asked.json()["status"] == "waiting"

        def answered():
            test = client.get(asked["Location"]).json()
            return test if test["status"] != "waiting" else None

        test = wait_for(answered, 30, lambda: f"no answer within 30 s:\n{worker.log()}")
        assert (test["status"], test["sent"]) == ("sent", True)
        assert test["summary"] == "The webhook answered 204: it works."
        (received,) = sink.requests
        assert received.json()["event_id"] == f"test-{test['id']}"
        assert "notifications.tasks.send_webhook_test" in worker.log()
