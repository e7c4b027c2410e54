"""The events' pages (`events:...`): the list, an event's page, a new event's form, and the
forms an event's page posts (register, withdraw, remove a player, cancel). Each POST calls one
service: done, it goes back to the event's page with a message; refused, the event's page says
why, answered with the refusal's status (403 for someone else's event, 409 for a closed one...),
and nothing is written. Every form works without scripts."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.http import AuthenticatedHttpRequest
from events import presenters, selectors, services, throttles
from events.errors import EventError, EventNotFound, InvalidEvent
from events.forms import LIST_TABS, EventCreateForm, EventListFilterForm
from events.models import Event

EVENTS_PAGE_SIZE = 25


# -- the list --------------------------------------------------------------------------------


@require_GET
def event_list(request: HttpRequest) -> HttpResponse:
    """Events by status (a tab each: open for registration, the default; running; finished),
    filtered by format and players per table, `EVENTS_PAGE_SIZE` a page. A filter that is not
    understood is left out, and the page says so."""
    form = EventListFilterForm(request.GET)
    valid = form.is_valid()
    chosen = form.cleaned_data if valid else {}
    status = chosen.get("status") or Event.Status.REGISTRATION
    events = selectors.events_list(
        status=status, format=chosen.get("format") or None, table_size=chosen.get("players")
    )
    page = Paginator(events, EVENTS_PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    filters = {k: v for k, v in query.items() if k in ("format", "players") and valid}
    tabs = [
        {
            "status": tab.value,
            "label": tab.label,
            "url": "?" + urlencode({"status": tab.value, **filters}),
            "current": tab == status,
        }
        for tab in LIST_TABS
    ]
    context = {
        "form": form,
        "status": status,
        "tabs": tabs,
        "page": page,
        "query": query.urlencode(),
    }
    return render(request, "events/list.html", context)


# -- an event's page -------------------------------------------------------------------------


def _event_or_404(event_id: int) -> Event:
    event = selectors.get_event(event_id)
    if event is None:
        raise Http404(EventNotFound().message)
    return event


def _event_page(request: HttpRequest, event: Event, status: int = 200) -> HttpResponse:
    entries = selectors.entries_of(event)
    active = [e for e in entries if e.is_active]
    mine = next((e for e in entries if e.user_id == request.user.pk), None)
    # The finished tables' results, read once for the standings, the crosstable and the rounds.
    by_game = selectors.results_by_game(event)
    results = list(by_game.values())
    lines = (
        selectors.standings_of(event, entries=entries, results=results)
        if event.status != Event.Status.REGISTRATION
        else []
    )
    is_open = event.status == Event.Status.REGISTRATION
    is_organiser = request.user.is_authenticated and event.organiser_id == request.user.pk
    context = {
        "event": event,
        "entries": active,
        "left": [e for e in entries if not e.is_active],
        "entry": mine,
        # Removing a player before the end, and cancelling before the start.
        "organiser_tools": is_organiser
        and event.status in (Event.Status.REGISTRATION, Event.Status.RUNNING),
        "is_full": len(entries) >= event.max_entrants,
        "can_register": is_open and mine is None,
        "can_withdraw": mine is not None
        and mine.is_active
        and event.status in (Event.Status.REGISTRATION, Event.Status.RUNNING),
        "rounds": presenters.rounds_shown(event, by_game),
        "standings": lines if presenters.has_results(lines) else [],
        "crosstable": presenters.crosstable_shown(event, lines, entries=entries, results=results)
        if lines
        else None,
        "crosstable_most": presenters.CROSSTABLE_MOST,
        "sign_in_url": f"{resolve_url(settings.LOGIN_URL)}?"
        + urlencode({"next": reverse("events:detail", args=[event.pk])}),
    }
    return render(request, "events/detail.html", context, status=status)


@require_GET
def event_detail(request: HttpRequest, event_id: int) -> HttpResponse:
    """An event's rules, entrants, rounds and their games, standings and crosstable; its
    register or withdraw button, and the organiser's tools. Public."""
    return _event_page(request, _event_or_404(event_id))


def _refused(request: HttpRequest, event_id: int, exc: EventError) -> HttpResponse:
    """The event's page again, saying why `exc` refused, with its status (a 404 page for an
    event that is not there)."""
    if isinstance(exc, EventNotFound):
        raise Http404(exc.message)
    messages.error(request, exc.message)
    return _event_page(request, _event_or_404(event_id), status=exc.status_code)


def _done(request: HttpRequest, event_id: int, message: str) -> HttpResponse:
    messages.success(request, message)
    return redirect("events:detail", event_id=event_id)


def _unconfirmed(request: HttpRequest, event_id: int, message: str) -> HttpResponse:
    """A form whose "yes, I mean it" box was left empty: nothing done, the page says so."""
    messages.error(request, message)
    return _event_page(request, _event_or_404(event_id), status=400)


@login_required
@require_POST
def entry_register(request: AuthenticatedHttpRequest, event_id: int) -> HttpResponse:
    """Register for the event (a private one with its invitation code, `code`)."""
    try:
        throttles.check(request, throttles.EventEntryThrottle)
        services.entry_register(
            event_id=event_id, user=request.user, code=request.POST.get("code", "").strip()
        )
    except EventError as exc:
        return _refused(request, event_id, exc)
    return _done(request, event_id, _("You are registered for this event."))


@login_required
@require_POST
def entry_withdraw(request: AuthenticatedHttpRequest, event_id: int) -> HttpResponse:
    """Withdraw from the event. Once it runs, the player's games of it still going are
    resigned: the form asks to tick a box saying so (`confirm`)."""
    event = _event_or_404(event_id)
    if event.status == Event.Status.RUNNING and request.POST.get("confirm") != "yes":
        return _unconfirmed(
            request,
            event_id,
            _("Tick the box to confirm: withdrawing resigns your games of this event."),
        )
    try:
        throttles.check(request, throttles.EventEntryThrottle)
        services.entry_withdraw(event_id=event_id, user=request.user)
    except EventError as exc:
        return _refused(request, event_id, exc)
    return _done(request, event_id, _("You withdrew from this event."))


@login_required
@require_POST
def entry_remove(request: AuthenticatedHttpRequest, event_id: int) -> HttpResponse:
    """The organiser takes a player (named by `username`) out of their event."""
    username = request.POST.get("username", "").strip()[:150]
    if not username:
        messages.error(request, _("Name the player to remove."))
        return _event_page(request, _event_or_404(event_id), status=400)
    try:
        throttles.check(request, throttles.EventOrganiseThrottle)
        services.entry_remove(event_id=event_id, organiser=request.user, username=username)
    except EventError as exc:
        return _refused(request, event_id, exc)
    return _done(request, event_id, _("%(name)s is no longer in this event.") % {"name": username})


@login_required
@require_POST
def event_cancel(request: AuthenticatedHttpRequest, event_id: int) -> HttpResponse:
    """The organiser calls off their event before it starts, once the box is ticked."""
    if request.POST.get("confirm") != "yes":
        return _unconfirmed(
            request, event_id, _("Tick the box to confirm that the event is to be cancelled.")
        )
    try:
        throttles.check(request, throttles.EventOrganiseThrottle)
        services.event_cancel(event_id=event_id, organiser=request.user)
    except EventError as exc:
        return _refused(request, event_id, exc)
    return _done(request, event_id, _("The event was cancelled; its players are told."))


# -- a new event -----------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def event_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    """A new event's form. The service's refusal is shown beside the field it names (or above
    the form, for a limit: `EventLimit`, a throttle), with its status (400, 429), and nothing
    is written."""
    form = EventCreateForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                throttles.check(request, throttles.EventCreateThrottle)
                event = services.event_create(
                    organiser=request.user, settings_=form.event_settings()
                )
            except InvalidEvent as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            except EventError as exc:
                form.add_error(None, exc.message)
                status = exc.status_code
            else:
                messages.success(
                    request, _("Your event was created: players may register for it now.")
                )
                return redirect("events:detail", event_id=event.pk)
    return render(request, "events/create.html", {"form": form}, status=status)
