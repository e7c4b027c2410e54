from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_http_methods, require_POST

from accounts import selectors, services, verification
from accounts.forms import ApiTokenForm, ProfileForm
from accounts.http import AuthenticatedHttpRequest
from accounts.middleware import language_cookie_set
from accounts.settings_page import settings_page
from core.pages.form_answers import answer


@login_required
@require_http_methods(["GET", "POST"])
def settings_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    profile = selectors.profile_for(user=request.user)
    if request.method == "POST":
        language_before = profile.language
        form = ProfileForm(request.POST, instance=profile)
        if form.is_valid():
            profile = services.profile_update(user=request.user, **form.cleaned_data)
            response = redirect("accounts:settings")
            if profile.language != language_before:
                # The pages follow a language chosen here at once, as the switcher's would.
                translation.activate(profile.language)
                language_cookie_set(response, profile.language)
            answer(request, messages.SUCCESS, gettext("Your settings were saved."), place="profile")
            return response
        return settings_page(request, form=form)
    return settings_page(request, form=ProfileForm(instance=profile))


@login_required
@require_POST
def token_create_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = ApiTokenForm(request.POST)
    if not form.is_valid():
        return settings_page(request, token_form=form, status=400)
    try:
        _token, key = services.token_create(
            user=request.user,
            name=form.cleaned_data["name"],
            expires_at=form.expires_at(timezone.now()),
        )
    except services.TokenError as exc:
        form.add_error(None, exc.message)
        return settings_page(request, token_form=form, status=exc.status_code)
    # Rendered, not redirected: the key is on this one response and nowhere else afterwards.
    response = settings_page(request, new_key=key)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    if services.token_revoke(user=request.user, token_id=request.POST.get("token")):
        level = messages.SUCCESS
        text = gettext("The API token was revoked; programs using it are locked out.")
    else:
        level = messages.ERROR
        text = gettext("You have no such token: it may be revoked already.")
    answer(request, level, text, place="api-tokens")
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


def _next(request: HttpRequest) -> str:
    """The page the form was on (`next`, a path of this site: the player's page), or "" for the
    settings page."""
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return back
    return ""


def _back(request: HttpRequest) -> HttpResponse:
    return redirect(_next(request) or "accounts:settings")


def _said(request: HttpRequest, level: int, text: str, *, place: str) -> None:
    """The answer beside the settings page's list at `place`, or atop the page the form was on."""
    if _next(request):
        messages.add_message(request, level, text)
    else:
        answer(request, level, text, place=place)


@login_required
@require_POST
def block_create_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The player page's Block button."""
    try:
        block = services.block_create(blocker=request.user, username=request.POST.get("username"))
    except services.BlockError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            gettext(
                "You blocked %(name)s: neither of you can invite the other, and the lobby keeps"
                " you apart."
            )
            % {"name": block.blocked.get_username()},
        )
    return _back(request)


@login_required
@require_POST
def block_delete_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Unblock, from the player's page or the settings page's list."""
    username = request.POST.get("username", "")
    try:
        services.block_delete(blocker=request.user, username=username)
    except services.BlockError as exc:
        _said(request, messages.ERROR, exc.message, place="blocked-players")
    else:
        text = gettext("You unblocked %(name)s.") % {"name": username}
        _said(request, messages.SUCCESS, text, place="blocked-players")
    return _back(request)


@login_required
@require_POST
def follow_create_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The player page's Follow button."""
    try:
        follow, _created = services.follow_create(
            follower=request.user, username=request.POST.get("username")
        )
    except services.FollowError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            gettext("You follow %(name)s: they come first when you invite players.")
            % {"name": follow.followed.get_username()},
        )
    return _back(request)


@login_required
@require_POST
def follow_delete_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Unfollow, from the player's page or the settings page's list."""
    username = request.POST.get("username", "")
    try:
        services.follow_delete(follower=request.user, username=username)
    except services.FollowError as exc:
        _said(request, messages.ERROR, exc.message, place="followed-players")
    else:
        text = gettext("You no longer follow %(name)s.") % {"name": username}
        _said(request, messages.SUCCESS, text, place="followed-players")
    return _back(request)
