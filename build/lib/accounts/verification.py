"""The "verify your email" step of signing up (or of logging in unverified), and sending its
email again.

allauth keeps a sign-up that waits for its email to be confirmed in the browser's session (a
login "stage", for ACCOUNT_LOGIN_TIMEOUT). That is what lets the confirmation link sign the
player in (ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION), and what a new email is sent for: to the address
the player gave, at most once per ACCOUNT_EMAIL_CONFIRMATION_COOLDOWN (allauth's `confirm_email`
rate limit, 3 minutes), whoever asks. Without that session (another browser, or too late),
logging in sends a new link, under the same limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from allauth.account.internal.flows.email_verification import (
    consume_email_verification_rate_limit,
)
from allauth.account.models import EmailAddress
from allauth.account.stages import EmailVerificationStage, LoginStageController
from allauth.account.utils import has_verified_email
from django.conf import settings
from django.http import HttpRequest, HttpResponse


@dataclass(frozen=True)
class Pending:
    """A sign-up (or log-in) in this session that waits for its email address."""

    stage: EmailVerificationStage
    email: str


def pending(request: HttpRequest) -> Pending | None:
    if request.user.is_authenticated:
        return None
    stage = LoginStageController.enter(request, EmailVerificationStage.key)
    if stage is None:
        return None
    login = stage.login
    email = login.email
    if not email and login.user is not None:
        address = (
            EmailAddress.objects.filter(user=login.user).order_by("-primary", "-verified").first()
        )
        email = address.email if address else ""
    if not email:
        return None
    return Pending(stage=stage, email=email)


class Resent(Enum):
    SENT = "sent"
    TOO_SOON = "too_soon"
    NOTHING_PENDING = "nothing_pending"


def cooldown_minutes() -> int:
    """The cool-down between two confirmation emails, in whole minutes (allauth's default)."""
    seconds = getattr(settings, "ACCOUNT_EMAIL_CONFIRMATION_COOLDOWN", None) or 3 * 60
    return max(1, math.ceil(seconds / 60))


def resend(request: HttpRequest) -> tuple[Resent, HttpResponse | None]:
    """Send the pending sign-up's confirmation email again, unless one went to that address
    within the cool-down. If the address was confirmed meanwhile (in another browser), the
    sign-up goes on: the player is signed in, and the response says where to."""
    waiting = pending(request)
    if waiting is None:
        return Resent.NOTHING_PENDING, None
    login = waiting.stage.login
    if login.user is not None and has_verified_email(login.user, login.email):
        return Resent.SENT, waiting.stage.exit()
    if not consume_email_verification_rate_limit(request, waiting.email, dry_run=True):
        return Resent.TOO_SOON, None
    # allauth's own step: sends the email (the link, or for an address that already has an
    # account, the "you already have an account" email), counts it against the rate limit and
    # says "Confirmation email sent to ...".
    waiting.stage.handle()
    return Resent.SENT, None
