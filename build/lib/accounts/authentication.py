"""The API's token authentication: `Authorization: Token <key>`, looked up by the key's digest
(`accounts.models.ApiToken`). A subclass of DRF's, so the header's parsing, its 401 with
`WWW-Authenticate: Token` and the schema's `tokenAuth` scheme stay as they were."""

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from accounts.models import ApiToken, User

# A token used all day costs one write a minute, not one per request; the settings page shows
# when it was last used to within this.
LAST_USED_EVERY = timedelta(minutes=1)


class ApiTokenAuthentication(TokenAuthentication):
    model = ApiToken

    def authenticate_credentials(self, key: str) -> tuple[User, ApiToken]:
        digest = ApiToken.digest_of(key)
        token = ApiToken.objects.select_related("user").filter(digest=digest).first()
        # The look-up is by an index on the digest, which says nothing of the key; the compare
        # only keeps a near miss from being told apart by time.
        if token is None or not constant_time_compare(token.digest, digest):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        now = timezone.now()
        if token.expired(now):
            raise exceptions.AuthenticationFailed(
                _("This token expired on %(date)s: create a new one on your settings page.")
                % {"date": f"{token.expires_at:%Y-%m-%d %H:%M} UTC"}
            )
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        last_used_mark(token, now)
        return token.user, token


def last_used_mark(token: ApiToken, now: datetime) -> None:
    """Record the use when the last recorded one is older than `LAST_USED_EVERY`. The update's
    own condition keeps concurrent requests from writing it more than once."""
    if token.last_used_at is not None and now - token.last_used_at < LAST_USED_EVERY:
        return
    ApiToken.objects.filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY), pk=token.pk
    ).update(last_used_at=now)
    token.last_used_at = now
