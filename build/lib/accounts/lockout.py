"""Limits on failed logins, for the site's login and the admin's alike (both authenticate through
AUTHENTICATION_BACKENDS, where these limits sit), without handing an attacker a way to lock the
owner out:

- per (account, client address), django-axes: AXES_FAILURE_LIMIT failures lock that pair for
  AXES_COOLOFF_TIME. Another address, the owner's, is not affected.
- per client address, whatever the account: ACCOUNT_RATE_LIMITS["login_failed_address"].
- per account, all addresses together: ACCOUNT_RATE_LIMITS["login_failed_account"], slower,
  which a guesser spreading attempts over many addresses (a botnet) reaches. Past it, attempts
  are refused (the right password too) except from a browser holding a "known device" cookie:
  signed, set by an earlier successful sign-in to that account (OWASP's "device cookies"). The
  owner keeps signing in from their own browsers meanwhile, or resets the password by email,
  which lifts the limit; an attacker without the cookie is slowed to the limit's rate. Known
  devices are neither counted nor refused by it: the axes pair still limits them.

Each limit counts an attempt before the password is checked and takes it back when the sign-in
succeeds (allauth's own way), so parallel guesses cannot overshoot it. Both rate limits are
allauth's (its cache-backed counters); the cookie is Django's signed cookie.
"""

import math
from collections.abc import Callable
from datetime import timedelta
from typing import Any

# allauth's own counters, as its adapter uses them: the public `consume` answers a bool, and an
# attempt must be taken back (`rollback`) when it succeeds.
from allauth.core.internal import ratelimit
from asgiref.sync import iscoroutinefunction
from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.decorators import sync_and_async_middleware

# The column django-axes keeps the username in.
AXES_USERNAME_MAX_LENGTH = 255
KNOWN_DEVICE_COOKIE = "known_device"
_KNOWN_DEVICE_SALT = "accounts.lockout.known_device"
KNOWN_DEVICE_MAX_AGE = timedelta(days=365)
# Accounts one browser is remembered for (a shared family computer); the latest kept.
KNOWN_DEVICE_MAX_ACCOUNTS = 5
ADDRESS_LIMIT = "login_failed_address"
ACCOUNT_LIMIT = "login_failed_account"
# Where allauth reads the rates: ACCOUNT_RATE_LIMITS.
_APP = "allauth.account"


def lockout_username(request: HttpRequest, credentials: dict | None) -> str:
    """The lockout key for an attempt: the account's username, whether the user typed the
    username or the email address, so that switching between them does not earn more guesses."""
    credentials = credentials or {}
    typed = (
        credentials.get("username")
        or credentials.get("email")
        or getattr(request, "POST", {}).get("login", "")
        or ""
    ).strip()
    if "@" in typed:
        username = (
            get_user_model()
            .objects.filter(emailaddress__email__iexact=typed)
            .values_list("username", flat=True)
            .first()
        )
        if username:
            typed = username
    return typed.lower()[:AXES_USERNAME_MAX_LENGTH]


def lockout_response(
    request: HttpRequest, original_response=None, credentials: dict | None = None
) -> HttpResponse:
    limit = getattr(request, "login_limit_reached", None)
    if limit is not None:
        # The longest wait: until the window's oldest counted attempt has left it.
        window = max(rate.duration for rate in ratelimit.get_rates(app=_APP, action=limit))
        minutes = max(1, math.ceil(window / 60))
    else:
        cool_off = get_cool_off(request) or settings.AXES_COOLOFF_TIME
        minutes = max(1, math.ceil(cool_off.total_seconds() / 60))
    return render(
        request,
        "account/lockout.html",
        {"minutes": minutes, "account_wide": limit == ACCOUNT_LIMIT},
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )


def _known_device_ids(request: HttpRequest) -> list[str]:
    # Missing, forged or expired: none.
    value = request.get_signed_cookie(
        KNOWN_DEVICE_COOKIE, default="", salt=_KNOWN_DEVICE_SALT, max_age=KNOWN_DEVICE_MAX_AGE
    )
    return [part for part in (value or "").split(",") if part.isdigit()]


def is_known_device(request: HttpRequest, username: str) -> bool:
    """Whether this browser signed in to the account `username` (a lockout key) before."""
    ids = _known_device_ids(request)
    return bool(ids) and (
        get_user_model().objects.filter(pk__in=ids, username__iexact=username).exists()
    )


def _refuse(request: HttpRequest, limit: str) -> None:
    # AxesMiddleware turns the flag into the lockout page, 429.
    request.login_limit_reached = limit  # type: ignore[attr-defined]
    request.axes_locked_out = True  # type: ignore[attr-defined]
    raise PermissionDenied(limit)


class LoginLimitBackend:
    """The per-address and per-account limits (module docstring): authenticates no one; counts
    the attempt, or refuses it. After axes' backend, so that an attempt axes refuses (that
    account from that address, locked) is not counted here: one address cannot reach the
    account-wide limit alone."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **credentials: Any,
    ) -> None:
        if request is None:
            return None
        account = lockout_username(request, {"username": username, **credentials})
        usages = []
        address_usage = ratelimit.consume(request, app=_APP, action=ADDRESS_LIMIT)
        if not address_usage:
            _refuse(request, ADDRESS_LIMIT)
        usages.append(address_usage)
        if account and not is_known_device(request, account):
            account_usage = ratelimit.consume(request, app=_APP, action=ACCOUNT_LIMIT, key=account)
            if not account_usage:
                address_usage.rollback()
                _refuse(request, ACCOUNT_LIMIT)
            usages.append(account_usage)
        request.login_limit_usages = usages  # type: ignore[attr-defined]
        return None


def forgive_signed_in(request: HttpRequest | None, user: Any) -> None:
    """A successful sign-in: its attempt is taken back from the limits, and the browser is
    remembered as a known device of the account (the cookie is set on the response by
    `known_device_middleware`)."""
    if request is None:
        return
    for usage in getattr(request, "login_limit_usages", []):
        usage.rollback()
    request.login_limit_usages = []  # type: ignore[attr-defined]
    request.known_device_signed_in = user.pk  # type: ignore[attr-defined]


def forgive_account(request: HttpRequest, user: Any) -> None:
    """A password reset by email proves the owner: the account-wide count starts again."""
    ratelimit.clear(
        request,
        app=_APP,
        action=ACCOUNT_LIMIT,
        key=lockout_username(request, {"username": user.get_username()}),
    )


def _remember_device(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    user_id = getattr(request, "known_device_signed_in", None)
    if user_id is None:
        return response
    ids = [str(user_id)] + [i for i in _known_device_ids(request) if i != str(user_id)]
    response.set_signed_cookie(
        KNOWN_DEVICE_COOKIE,
        ",".join(ids[:KNOWN_DEVICE_MAX_ACCOUNTS]),
        salt=_KNOWN_DEVICE_SALT,
        max_age=int(KNOWN_DEVICE_MAX_AGE.total_seconds()),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response


@sync_and_async_middleware
def known_device_middleware(get_response: Callable[..., Any]) -> Callable[..., Any]:
    """Sets the known-device cookie after a successful sign-in. Both kinds, so that the live
    process's waits (async views) hold no thread for it."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            return _remember_device(request, await get_response(request))

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        return _remember_device(request, get_response(request))

    return middleware
