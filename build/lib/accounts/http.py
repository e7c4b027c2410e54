"""Requests as the type checker sees them behind a sign-in (`login_required`, DRF's
`IsAuthenticated`): their `user` is a `User`, never the anonymous one that a plain `HttpRequest`
or DRF `Request` may carry. Annotations only: at run time they are the usual requests."""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework.request import Request

from accounts.models import User


class AuthenticatedHttpRequest(HttpRequest):
    user: User


class AuthenticatedRequest(Request):
    user: User
