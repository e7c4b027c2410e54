"""Who is asking: the session backend and the API token authentication, both read through the
cache of users (`accounts.cache`) instead of querying the database on every request."""

from __future__ import annotations

from typing import Any

from allauth.account.auth_backends import AuthenticationBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.utils.translation import gettext as _
from rest_framework import HTTP_HEADER_ENCODING, exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.request import Request

from accounts import cache as user_cache
from azul_site import prefetch, throttling


class CachedAuthenticationBackend(AuthenticationBackend):
    """allauth's backend (login by username or email), loading the session's user from the
    cache."""

    def get_user(self, user_id: Any) -> AbstractBaseUser | None:
        user = user_cache.user_get(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None


class CachedTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, with the key's user from the cache. `request.auth` is the
    key. The request's hit on the API limit is counted in the same round trip when it can be
    (`azul_site.throttling`), and the cache entries that the view asks for are read in it
    (`azul_site.prefetch`)."""

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, str] | None:
        """DRF's `TokenAuthentication.authenticate`, reading the header from `request.META`:
        DRF reads `request.headers`, which builds a dict of every header on first use, to look
        at this one, on every API call."""
        self.request = request
        header = request.META.get("HTTP_AUTHORIZATION", b"")
        if isinstance(header, str):
            header = header.encode(HTTP_HEADER_ENCODING)
        parts = header.split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        if len(parts) == 1:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header. No credentials provided.")
            )
        if len(parts) > 2:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header. Token string should not contain spaces.")
            )
        try:
            key = parts[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header. Token string should not contain invalid characters.")
            ) from None
        return self.authenticate_credentials(key)

    def authenticate_credentials(self, key: str) -> tuple[AbstractBaseUser, str]:
        wanted = prefetch.keys_for(self.request)
        user, counted, found = user_cache.user_for_token(
            key, counter_for=throttling.user_counter, also_get=wanted
        )
        setattr(self.request, throttling.COUNTED_HITS, counted)
        prefetch.remember(self.request, found)
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, key
