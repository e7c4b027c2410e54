"""The API schema's refusals by DRF's machinery (core/api/schema.py): every operation says what an
anonymous caller, a refused one and a throttled one get, in the error body every error has."""

import pytest

pytestmark = pytest.mark.django_db

ERROR = {"$ref": "#/components/schemas/Error"}


@pytest.fixture(scope="module")
def operations(django_db_setup, django_db_blocker):
    from drf_spectacular.generators import SchemaGenerator

    with django_db_blocker.unblock():
        schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        (method.upper(), path): operation
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    }


def body(response):
    return response["content"]["application/json"]["schema"]


def test_every_operation_lists_401_and_429_in_the_error_body(operations):
    assert len(operations) > 40
    for key, operation in operations.items():
        for code in ("401", "429"):
            assert code in operation["responses"], key
            assert body(operation["responses"][code]) == ERROR, (key, code)


def test_every_change_lists_403_for_the_session_check(operations):
    changes = {
        key: op for key, op in operations.items() if key[0] in {"POST", "PUT", "PATCH", "DELETE"}
    }
    assert changes
    for key, operation in changes.items():
        assert body(operation["responses"]["403"]) == ERROR, key


def test_a_view_that_says_its_own_refusal_keeps_its_words(operations):
    # The chat's report says when it refuses with 403 (core/api/schema.py adds only what is
    # missing).
    forbidden = operations[("POST", "/api/chat/messages/{message_id}/report/")]["responses"]["403"]
    assert "CSRF" not in forbidden["description"]


def test_a_read_anyone_may_make_without_a_throttle_lists_neither(rf):
    from rest_framework import permissions
    from rest_framework.views import APIView

    from core.api.schema import refusals

    class Open(APIView):
        authentication_classes: list = []
        permission_classes = [permissions.AllowAny]
        throttle_classes: list = []

    view = Open()
    view.request = rf.get("/")
    assert refusals(view, "GET") == {}

    class Guarded(Open):
        permission_classes = [permissions.IsAdminUser]

    view = Guarded()
    view.request = rf.get("/")
    # No authenticator to name a WWW-Authenticate scheme: DRF answers 403, for both.
    assert set(refusals(view, "GET")) == {"403"}
