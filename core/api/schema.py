"""The API's OpenAPI schema (drf-spectacular): every operation's refusals that come from DRF's
machinery rather than from the view's own code - authentication, permission, throttling - read
from each view's classes, so that no view has to list them and none can forget them.

A view's own `@extend_schema(responses=...)` still says what its code refuses and when; these
are added only where it says nothing of that status.
"""

from typing import Any

from drf_spectacular.openapi import AutoSchema
from rest_framework import permissions
from rest_framework.authentication import SessionAuthentication

from core.api.responses import error_response

# Permissions that never refuse a signed-in caller: IsAuthenticated refuses only the anonymous,
# which DRF answers as a failed authentication (401 with the token's WWW-Authenticate).
_NEVER_REFUSE_SIGNED_IN = (permissions.AllowAny, permissions.IsAuthenticated)

NOT_AUTHENTICATED = (
    "Not signed in: no `Authorization: Token <key>` header (where the operation needs one),"
    " or a token that is not valid"
)
FORBIDDEN = "Not allowed: the caller may not do this (or a signed-in session's CSRF check failed)"
THROTTLED = "Too many requests: try again after the seconds in the `Retry-After` header"


def refusals(view: Any, method: str) -> dict[str, str]:
    """The statuses (code -> when) with which DRF itself may refuse `method` on `view` before
    or around its code: by its authentication, its permissions and its throttles."""
    request = view.request
    authenticators = view.get_authenticators()
    # DRF answers a failed or missing authentication with 401 when the first authenticator
    # names a WWW-Authenticate scheme, else with 403 (APIView.permission_denied).
    refused_unauthenticated = (
        "401" if authenticators and authenticators[0].authenticate_header(request) else "403"
    )
    found: dict[str, str] = {}
    can_refuse_anonymous = any(
        not isinstance(permission, permissions.AllowAny) for permission in view.get_permissions()
    )
    # Any authenticator refuses a credential it cannot accept, even where anyone may call.
    if authenticators or can_refuse_anonymous:
        found[refused_unauthenticated] = NOT_AUTHENTICATED
    refuses_signed_in = any(
        not isinstance(permission, _NEVER_REFUSE_SIGNED_IN) for permission in view.get_permissions()
    )
    csrf = method not in permissions.SAFE_METHODS and any(
        isinstance(authenticator, SessionAuthentication) for authenticator in authenticators
    )
    if refuses_signed_in or csrf:
        found.setdefault("403", FORBIDDEN)
    if view.get_throttles():
        found["429"] = THROTTLED
    return found


class ApiSchema(AutoSchema):
    """The site's AutoSchema (REST_FRAMEWORK's DEFAULT_SCHEMA_CLASS): each operation's responses
    with `refusals` added, in the error body every API error has
    (`core.api.responses.ErrorSerializer`)."""

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code, description in refusals(self.view, self.method).items():
            if code not in responses:
                responses[code] = self._get_response_for_code(error_response(description), code)
        return responses
