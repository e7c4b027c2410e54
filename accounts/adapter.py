"""django-allauth, adapted to the site: its emails name the site by `SITE_NAME`.

Without the sites framework, allauth takes the request's host for the site ("Hello from
127.0.0.1:8000!", "[127.0.0.1:8000] Please Confirm..."). This adapter gives every allauth email
the site's name (`settings.SITE_NAME`) and its address (`settings.SITE_URL`), read when the email
is sent, so no database row (a `Site`) needs setting up on a fresh database or keeping in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from allauth.account import app_settings
from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils.encoding import force_str
from django.utils.translation import gettext

from accounts import name_rules
from core.http.client_ip import client_address


@dataclass(frozen=True)
class SiteIdentity:
    """What allauth's templates read as `current_site`."""

    name: str
    domain: str


def site_identity() -> SiteIdentity:
    return SiteIdentity(
        name=settings.SITE_NAME, domain=urlsplit(settings.SITE_URL).netloc or settings.SITE_NAME
    )


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request: HttpRequest) -> str:
        # The site's one rule for the client's address (TRUSTED_PROXY_COUNT): allauth's own
        # would answer 500 to a header shorter than the count of proxies.
        address = client_address(request)
        if not address:
            raise PermissionDenied("Unable to determine client IP address")
        return address

    def format_email_subject(self, subject: str) -> str:
        # ACCOUNT_EMAIL_SUBJECT_PREFIX, when set, still wins.
        prefix = app_settings.EMAIL_SUBJECT_PREFIX
        if prefix is None:
            prefix = f"[{settings.SITE_NAME}] "
        return prefix + force_str(subject)

    def clean_username(self, username: str, shallow: bool = False) -> str:
        # NFKC, no control or format characters, and not confusable with another player's
        # username or display name (`accounts.name_rules`); allauth's own checks in between.
        username = name_rules.normalise(username)
        name_rules.check_characters(username)
        name_rules.check_length(username, get_user_model()._meta.get_field("username").max_length)
        username = super().clean_username(username, shallow=shallow)
        if not shallow:
            name_rules.check_not_confusable(username)
        return username

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        site = site_identity()
        ctx = {"current_site": site, "site_name": site.name, "site_url": settings.SITE_URL}
        ctx.update(context)
        super().send_mail(template_prefix, email, ctx)

    def get_email_verification_redirect_url(self, email_address) -> str:
        if not self.request.user.is_authenticated:
            # Confirming signs the player in only where they signed up (allauth keeps the
            # sign-up in that browser's session, for ACCOUNT_LOGIN_TIMEOUT): anywhere else, or
            # later, the link confirms the address and the player logs in as usual.
            messages.info(
                self.request,
                gettext("Your email address is confirmed: log in to start playing."),
            )
        return super().get_email_verification_redirect_url(email_address)
