import zoneinfo

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import selectors, services, verification
from accounts.forms import ProfileForm, VacationForm
from accounts.templatetags.local_time import local_time
from games import selectors as games_selectors
from games.errors import GameError
from games.filters import GameHistoryFilter
from games.services import vacation_start
from ratings import charts
from ratings import selectors as ratings_selectors


@require_GET
def player_detail(request: HttpRequest, username: str) -> HttpResponse:
    player = selectors.player_get(username=username)
    if player is None:
        raise Http404("No such player.")
    # Their most recent finished games: the history's first page filtered to them.
    history = GameHistoryFilter(
        {"player": player.get_username()}, queryset=games_selectors.finished_games()
    ).qs[: games_selectors.HISTORY_PAGE_SIZE]
    context = {
        "player": player,
        "stats": games_selectors.player_stats(user=player),
        "rating": ratings_selectors.player_rating(user=player),
        "chart": charts.rating_chart(ratings_selectors.rating_history(user=player)),
        "rows": games_selectors.history_rows(history),
    }
    return render(request, "accounts/player_detail.html", context)


def _settings_page(
    request: HttpRequest, form: ProfileForm, *, new_token=None, vacation_form=None
) -> HttpResponse:
    profile = form.instance
    now = timezone.now()
    context = {
        "form": form,
        "token": new_token or selectors.token_for(user=request.user),
        "new_token": new_token,
        "vacation_form": vacation_form or VacationForm(),
        "away_until": profile.vacation_until if profile.on_vacation(now) else None,
        "vacation_days_left": profile.vacation_days_left(now.year),
    }
    return render(request, "accounts/settings.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def settings_view(request: HttpRequest) -> HttpResponse:
    profile = selectors.profile_for(user=request.user)
    if request.method == "POST":
        form = ProfileForm(request.POST, instance=profile)
        if form.is_valid():
            services.profile_update(user=request.user, **form.cleaned_data)
            messages.success(request, gettext("Your settings were saved."))
            return redirect("accounts:settings")
        return _settings_page(request, form)
    return _settings_page(request, ProfileForm(instance=profile))


@login_required
@require_POST
def vacation_view(request: HttpRequest) -> HttpResponse:
    form = VacationForm(request.POST)
    if form.is_valid():
        try:
            profile = vacation_start(user=request.user, days=form.cleaned_data["days"])
        except GameError as exc:
            form.add_error("days", exc.message)
        else:
            with timezone.override(_zone(profile)):
                until = local_time(profile.vacation_until, "l j F, H:i")
            messages.success(
                request,
                gettext("Enjoy your vacation: your clocks are stopped until %(until)s.")
                % {"until": until},
            )
            return redirect("accounts:settings")
    profile = selectors.profile_for(user=request.user)
    return _settings_page(request, ProfileForm(instance=profile), vacation_form=form)


def _zone(profile) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(profile.time_zone)


@login_required
@require_POST
def token_create_view(request: HttpRequest) -> HttpResponse:
    token = services.token_create(user=request.user)
    # Rendered, not redirected: the key is on this one response and nowhere else afterwards.
    form = ProfileForm(instance=selectors.profile_for(user=request.user))
    response = _settings_page(request, form, new_token=token)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke_view(request: HttpRequest) -> HttpResponse:
    if services.token_revoke(user=request.user):
        messages.success(
            request, gettext("Your API token was revoked; programs using it are locked out.")
        )
    return redirect("accounts:settings")


@require_POST
def verification_resend_view(request: HttpRequest) -> HttpResponse:
    """The "send it again" button of the "verify your email" page (`accounts.verification`)."""
    outcome, response = verification.resend(request)
    if response is not None:
        return response
    if outcome is verification.Resent.NOTHING_PENDING:
        messages.info(
            request,
            gettext(
                "Log in with your username and password: if your email address is not "
                "confirmed yet, we send you a new link."
            ),
        )
        return redirect("account_login")
    if outcome is verification.Resent.TOO_SOON:
        minutes = verification.cooldown_minutes()
        messages.warning(
            request,
            ngettext(
                "We sent you an email less than a minute ago: look for it (in your spam "
                "folder too) before asking for another.",
                "We sent you an email less than %(minutes)d minutes ago: look for it (in your "
                "spam folder too) before asking for another.",
                minutes,
            )
            % {"minutes": minutes},
        )
    # On SENT allauth has said "Confirmation email sent to ...".
    return redirect("account_email_verification_sent")
