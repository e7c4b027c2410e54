"""What apps higher up add to the pages, emails and records of the apps below (`core.slots`): each
slot is a Django signal, and its receivers answer in the order they were connected, their apps'
order in INSTALLED_APPS (#66)."""

from __future__ import annotations

from typing import Any

import pytest

from core.slots import (
    Panel,
    Slot,
    additions_merged,
    email_parts_rendered,
    panels_html,
    settings_page_panels,
)

SETTINGS = "/settings/"


@pytest.mark.django_db
def test_the_settings_page_shows_the_apps_panels_in_their_apps_order(alice, client_for):
    page = client_for(alice).get(SETTINGS).content.decode()

    # games (the calendar), notifications (push, then webhooks), chat.
    places = [
        page.index(f'id="{place}"')
        for place in ("calendar-feed", "push-settings", "webhooks", "chat-settings")
    ]
    assert places == sorted(places)


@pytest.mark.django_db
def test_a_receiver_connected_later_answers_last_with_what_the_page_knows(alice, client_for):
    heard: list[dict[str, Any]] = []

    def late_panel(request, **page):
        heard.append({"user": request.user.username, **page})
        return Panel.rendered('<p id="late-panel"></p>')

    def no_panel(request, **page):
        return None

    settings_page_panels.connect(late_panel)
    settings_page_panels.connect(no_panel)
    try:
        page = client_for(alice).get(SETTINGS).content.decode()
    finally:
        settings_page_panels.disconnect(late_panel)
        settings_page_panels.disconnect(no_panel)

    assert page.index('id="chat-settings"') < page.index('id="late-panel"')
    assert heard == [{"user": "alice", "signal": settings_page_panels, "sender": None}]


def test_the_answers_are_gathered_in_the_order_of_connection():
    slot = Slot(additions_merged)

    def first(**about):
        return {"chat": "first", "first": about["game"]}

    def second(**about):
        return {"chat": "second"}

    slot.connect(first)
    slot.connect(second)
    assert slot.collect(game=7) == {"chat": "second", "first": 7}


def test_email_parts_come_in_the_order_of_connection_and_none_adds_nothing(tmp_path, settings):
    (tmp_path / "part.html").write_text("<b>{{ word }}</b>")
    (tmp_path / "part.txt").write_text("{% autoescape off %}{{ word }}.{% endautoescape %}")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path]}]
    slot = Slot(email_parts_rendered)

    def part(word):
        def receiver(**about):
            return "part.html", "part.txt", {"word": word}

        return receiver

    receivers = [part("one"), lambda **about: None, part("two & three")]
    for receiver in receivers:
        slot.connect(receiver)

    parts = slot.collect(user_id=1)

    assert parts.html == "<b>one</b><b>two &amp; three</b>"
    assert parts.text == "one.two & three."


def test_a_failing_receiver_fails_the_page_as_it_did_before():
    slot = Slot(panels_html)

    def broken(request, **page):
        raise LookupError("the panel's read failed")

    slot.connect(broken)
    with pytest.raises(LookupError):
        slot.collect(request=None)
