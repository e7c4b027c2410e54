"""The settings page's forms answer beside the form that was used (issue 58, "messages out of
sight"): the answer sits in the form's section (a webhook's in its row), takes the focus when
the page loads (autofocus, no script), and the top of the page says nothing; a webhook address
refused comes back as typed with its error beside the field. The same answers in a browser, by
keyboard, are in tests/e2e/test_form_answers.py."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from accounts import services
from notifications.models import Webhook
from notifications.webhooks import services as webhook_services
from tests.support.http_sink import HttpSink

pytestmark = pytest.mark.django_db

VOID = {"input", "br", "meta", "link", "img", "hr", "source", "col", "wbr"}


class Answers(HTMLParser):
    """Each form answer's text and the ids of the elements around it, innermost first; and
    whether the page has the top list of messages."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.found: list[dict] = []
        self.reading: dict | None = None
        self.top_messages = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if "messages" in classes:
            self.top_messages = True
        if "form-answer" in classes:
            self.reading = {
                "around": [i for i in reversed(self.stack) if i],
                "autofocus": "autofocus" in a,
                "tabindex": a.get("tabindex"),
                "text": "",
            }
        if tag not in VOID:
            self.stack.append(a.get("id") or "")

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.stack:
            self.stack.pop()
        if self.reading is not None and tag == "p":
            self.found.append(self.reading)
            self.reading = None

    def handle_data(self, data):
        if self.reading is not None:
            self.reading["text"] += data


def answers(response) -> Answers:
    parser = Answers()
    parser.feed(response.content.decode())
    return parser


def the_answer(response) -> dict:
    page = answers(response)
    assert not page.top_messages, "the answer is beside its form, not atop the page"
    (found,) = page.found
    assert found["autofocus"] and found["tabindex"] == "-1"
    return found


@pytest.fixture
def sink():
    with HttpSink() as running:
        yield running


def test_saving_the_profile_answers_under_its_form(alice, client_for):
    client = client_for(alice)
    data = {
        field: value
        for field, value in client.get(reverse("accounts:settings")).context["form"].initial.items()
        if value is not None
    }
    response = client.post(reverse("accounts:settings"), data, follow=True)
    found = the_answer(response)
    assert "Your settings were saved." in found["text"]
    assert found["around"][0] == "profile-settings"


def test_revoking_a_token_answers_in_the_tokens_section(alice, client_for):
    token, _key = services.token_create(user=alice, name="CI", expires_at=None)
    response = client_for(alice).post(
        reverse("accounts:token_revoke"), {"token": token.pk}, follow=True
    )
    found = the_answer(response)
    assert "revoked" in found["text"]
    assert found["around"][0] == "api-token"


def test_unfollowing_from_the_settings_page_answers_at_the_list_and_from_a_player_page_atop_it(
    alice, bob, client_for
):
    services.follow_create(follower=alice, username="bob")
    client = client_for(alice)
    response = client.post(reverse("accounts:follow_delete"), {"username": "bob"}, follow=True)
    assert the_answer(response)["around"][0] == "followed-players"

    services.follow_create(follower=alice, username="bob")
    player_page = reverse("accounts:player", args=["bob"])
    back = client.post(
        reverse("accounts:follow_delete"), {"username": "bob", "next": player_page}, follow=True
    )
    # The player's page has no place for it: the answer is atop that page, as before.
    page = answers(back)
    assert page.top_messages and not page.found


def test_the_chats_setting_answers_in_its_section(alice, client_for):
    response = client_for(alice).post(
        reverse("chat:privacy_settings"), {"spectators_may_read": "1"}, follow=True
    )
    found = the_answer(response)
    assert "Spectators may read" in found["text"]
    assert found["around"][0] == "chat-settings"


def test_a_webhooks_test_answers_in_its_row(alice, client_for, sink):
    hook = webhook_services.webhook_create(
        user_id=alice.pk, name="Hook", url=sink.url + "/hook", style="json"
    )
    response = client_for(alice).post(
        reverse("notifications:webhook_test", args=[hook.pk]), follow=True
    )
    found = the_answer(response)
    assert "The test is on its way." in found["text"]
    assert found["around"][:2] == [f"webhook-{hook.pk}", "webhook-list"]


def test_adding_a_webhook_answers_in_its_new_row_and_removing_it_at_the_list(
    alice, client_for, sink
):
    client = client_for(alice)
    added = client.post(
        reverse("notifications:webhook_add"),
        {"name": "Team", "url": sink.url + "/hook", "style": "json"},
        follow=True,
    )
    hook = Webhook.objects.get(user=alice)
    assert the_answer(added)["around"][0] == f"webhook-{hook.pk}"

    removed = client.post(reverse("notifications:webhook_remove", args=[hook.pk]), follow=True)
    found = the_answer(removed)
    assert "removed" in found["text"] and found["around"][0] == "webhooks"


def test_a_refused_address_comes_back_as_typed_with_its_error_beside_the_field(
    alice, client_for, settings
):
    settings.OUTBOUND_ALLOW_HTTP = False
    typed = {"name": "Team channel", "url": "https://10.0.0.5:8443/private-hook", "style": "slack"}
    response = client_for(alice).post(reverse("notifications:webhook_add"), typed)

    assert response.status_code == 400
    page = response.content.decode()
    assert not answers(response).top_messages
    assert 'value="Team channel"' in page
    assert 'value="https://10.0.0.5:8443/private-hook"' in page
    assert '<option value="slack" selected>' in page
    url_input = page[
        page.index('id="webhook-url"') : page.index(">", page.index('id="webhook-url"'))
    ]
    assert 'aria-invalid="true"' in url_input and "autofocus" in url_input
    assert 'aria-describedby="webhook-url-error webhook-url-help"' in url_input
    error = page[page.index('id="webhook-url-error"') :]
    assert error.index("The webhook was not added") < error.index("</span>")
    # Only the field in error is marked.
    name_input = page[
        page.index('id="webhook-name"') : page.index(">", page.index('id="webhook-name"'))
    ]
    assert "aria-invalid" not in name_input and "autofocus" not in name_input
    assert not Webhook.objects.exists()


def test_the_profile_forms_first_field_in_error_takes_the_focus(alice, client_for):
    response = client_for(alice).post(reverse("accounts:settings"), {"name": "x" * 500})
    page = response.content.decode()
    focused = [
        tag
        for tag in page.split("<")
        if " autofocus" in tag and tag.startswith(("input", "select"))
    ]
    assert len(focused) == 1 and 'aria-invalid="true"' in focused[0]
