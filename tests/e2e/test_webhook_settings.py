"""The settings page's webhooks in Chromium: no serious axe violation with webhooks listed (one
on, one turned off with its last error), in English on a desktop and in Korean on a phone; and by
keyboard alone, the signing secret shown and a test sent to a real sink, its answer on the page,
and a test's answer shown when it comes."""

import pytest
from playwright.sync_api import expect

from accounts.models import Profile
from notifications.models import Webhook, WebhookTest
from notifications.webhooks import services as webhook_services
from tests.e2e.test_axe import serious_violations
from tests.support.browser import DESKTOP, PHONE, signed_in
from tests.support.http_sink import HttpSink

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.mark.parametrize(
    ("language", "viewport"), [("en", DESKTOP), ("ko", PHONE)], ids=["en-desktop", "ko-phone"]
)
def test_the_webhooks_section_by_keyboard_and_axe(contexts, live_server, alice, language, viewport):
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    Profile.objects.filter(user=alice).update(language=language)
    with HttpSink() as sink:
        hook = webhook_services.webhook_create(
            user_id=alice.pk, name="Team channel", url=sink.url + "/hook-abcd", style="json"
        )
        off = webhook_services.webhook_create(
            user_id=alice.pk, name="Old bot", url=sink.url + "/old-wxyz", style="discord"
        )
        Webhook.objects.filter(pk=off.pk).update(
            enabled=False,
            disabled_reason="5 deliveries in a row failed.",
            last_error="The webhook answered 404. Unknown Webhook",
        )
        options: dict = {"locale": "ko-KR" if language == "ko" else "en-US", "viewport": viewport}
        if viewport == PHONE:
            options |= {"is_mobile": True, "has_touch": True}
        page = signed_in(contexts(**options), live_server.url, alice)
        page.goto(live_server.url + "/settings/#webhooks")

        assert page.locator("#webhooks li").count() == 2
        assert serious_violations(axe_module.Axe(), page, f"webhooks, {language}") == []

        secret = page.locator(f"#webhook-{hook.pk} code.token")
        assert not secret.is_visible()
        page.locator(f"#webhook-{hook.pk} summary").focus()
        page.keyboard.press("Enter")
        assert secret.is_visible()
        assert secret.inner_text() == hook.secret

        test_button = page.locator(f"#webhook-{hook.pk} form[action$='/test/'] button")
        test_button.focus()
        with page.expect_navigation():
            page.keyboard.press("Enter")
        (received,) = sink.wait_for(1)
        assert received.json()["kind"] == "test"
        # Sent after the request (in-process here, as the request's transaction commits): the
        # row's test line has the answer.
        expect(page.locator(f"#webhook-{hook.pk}-test")).to_contain_text("204")
        assert serious_violations(axe_module.Axe(), page, f"after a test, {language}") == []


def test_a_tests_answer_replaces_the_wait_when_it_comes(contexts, live_server, alice, artifacts):
    """A test a worker has not sent yet: the line says it waits, and its script puts the
    answer in when there is one (a live region: read out), without a reload."""
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    with HttpSink() as sink:
        sink.answer(202)
        hook = webhook_services.webhook_create(
            user_id=alice.pk, name="Team channel", url=sink.url + "/hook-abcd", style="json"
        )
        waiting = WebhookTest.objects.create(user=alice, webhook=hook)  # its task not run yet
        context = contexts(viewport=PHONE, is_mobile=True, has_touch=True)
        page = signed_in(context, live_server.url, alice)
        page.goto(live_server.url + "/settings/#webhooks")
        line = page.locator(f"#webhook-{hook.pk}-test")
        expect(line).to_have_attribute("role", "status")
        expect(line).to_contain_text("waiting for the webhook")

        webhook_services.webhook_test_send(test_id=waiting.pk)  # what the worker does

        expect(line).to_contain_text("it went through. The webhook answered 202", timeout=15_000)
        line.scroll_into_view_if_needed()
        page.screenshot(path=artifacts / "webhook-test-answered-phone.png")
        assert serious_violations(axe_module.Axe(), page, "a test answered") == []
