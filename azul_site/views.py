from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_safe

from azul import FLOOR_PENALTY
from core.ops import readiness
from core.outages import cache as site_cache
from games.presenters.board import wall_pattern
from games.presenters.lists import home_games
from games.presenters.rules import rules_pictures


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    user = request.user
    context = {"home_games": home_games(user=user)} if user.is_authenticated else {}
    return render(request, "home.html", context)


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """The rules of Azul in the site's own words, with the colored wall's pattern and pictures
    of the board drawn with the board's own markup."""
    context = {
        "wall": wall_pattern(),
        "floor_penalties": FLOOR_PENALTY,
        "pictures": rules_pictures(),
        # What the board's markup reads of its game: "to move" is shown, as in a game in play.
        "picture_game": {"status": "active"},
    }
    return render(request, "rules.html", context)


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        return "unreachable"
    return "ok"


def _cache() -> str:
    """Whether the cache answers: a miss on a key nobody writes is an answer; an error (which
    the Redis cache turns into a miss) shows as the outage its connections saw."""
    cache.get("healthz:probe")
    return "skipped (not answering)" if site_cache.outage.failing else "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 while the site can serve moves (its database answers), whatever the cache does;
    the body says which of the two answer."""
    database = _database()
    body = {"status": "ok" if database == "ok" else "error", "database": database}
    body["cache"] = _cache()
    return JsonResponse(body, status=200 if database == "ok" else 503)


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """For a load balancer: 200 while this process should take traffic, else 503 and why
    (core.ops.readiness). `healthz` says whether it is alive."""
    reasons = readiness.not_ready_reasons(settings.READYZ_DATABASE_TIMEOUT)
    if reasons:
        return JsonResponse({"status": "not ready", "reasons": reasons}, status=503)
    return JsonResponse({"status": "ready"})


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask for on their own: a redirect to the static icon (whose
    URL carries its hash in production), cached a day so that browsers do not ask each visit."""
    response = redirect(static("favicon.ico"))
    response["Cache-Control"] = "public, max-age=86400"
    return response


@require_safe
def security_txt(request: HttpRequest) -> HttpResponse:
    """/.well-known/security.txt (RFC 9116): where to report a security problem. Its `Expires`
    is always a few months ahead, so the file never goes stale while the site runs."""
    expires = (timezone.now() + timedelta(days=180)).replace(microsecond=0)
    lines = [
        f"Contact: mailto:{settings.SECURITY_CONTACT}",
        f"Expires: {expires.strftime('%Y-%m-%dT%H:%M:%SZ')}",
        "Preferred-Languages: en, ko",
        f"Canonical: {settings.SITE_URL}/.well-known/security.txt",
    ]
    response = HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "public, max-age=86400"
    return response
