"""The one-click unsubscribe page: thin, over `tokens` and `services.unsubscribe`."""

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from notifications import selectors, services
from notifications.models import Channel, Notification, kinds_sharing_choice
from notifications.tokens import BadToken, unsubscribe_target_read


# CSRF-exempt: mail clients POST the one-click unsubscribe (RFC 8058) with no token or cookie.
# The signed link is the credential, and all it can do is turn an email off.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET: ask to confirm (mail scanners follow links; a GET changes nothing). POST: do it."""
    try:
        user_id, kind, channel = unsubscribe_target_read(token)
        player = get_user_model().objects.select_related("profile").get(pk=user_id)
    except (BadToken, get_user_model().DoesNotExist):
        response = render(request, "notifications/unsubscribe_invalid.html", status=400)
    else:
        context = {
            "player": player,
            "kind": kind,
            "kind_label": kind.label.lower(),
            # "email", "push" or "webhook": the page says which is turned off.
            "channel": channel,
            "channel_label": Channel(channel).label,
            # The one choice on the settings page covers these kinds too.
            "also": ", ".join(
                Notification.Kind(k).label.lower() for k in kinds_sharing_choice(kind) if k != kind
            ),
        }
        if selectors.unsubscribed_from(player=player, kind=kind, channel=channel):
            # The link opened again (or posted twice): nothing to do, and the page says so.
            context["already"] = True
            response = render(request, "notifications/unsubscribed.html", context)
        elif request.method == "POST":
            services.unsubscribe(user_id=user_id, kind=kind, channel=channel)
            response = render(request, "notifications/unsubscribed.html", context)
        else:
            response = render(request, "notifications/unsubscribe_confirm.html", context)
    # The link is a credential: keep it out of caches.
    response["Cache-Control"] = "no-store"
    return response
