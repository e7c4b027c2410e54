"""The API's pages (`core.api.responses.PageNumbers`): a `page_size` that is not a number from 1
to 100 is refused with 400 and the reason, as "My games" refuses one, where DRF would serve the
default page instead (found by Schemathesis: the schema says `page_size` is such a number)."""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

PAGED = ["/api/lobby/", "/api/leaderboard/", "/api/games/?status=finished", "/api/invitations/"]


@pytest.mark.parametrize("path", PAGED)
@pytest.mark.parametrize("page_size", ["x", "null", "0", "-1", "101", ""])
def test_a_page_size_that_is_not_1_to_100_is_refused(alice, path, page_size):
    client = APIClient()
    client.force_authenticate(alice)
    separator = "&" if "?" in path else "?"

    response = client.get(f"{path}{separator}page_size={page_size}")

    assert response.status_code == 400, response.content
    assert "page_size" in response.json()["errors"]


@pytest.mark.parametrize("path", PAGED)
def test_a_page_size_from_1_to_100_is_taken(alice, path):
    client = APIClient()
    client.force_authenticate(alice)
    separator = "&" if "?" in path else "?"

    for page_size in (1, 100):
        assert client.get(f"{path}{separator}page_size={page_size}").status_code == 200


def test_the_schema_says_which_pages_and_sizes_there_are(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path in ("/api/lobby/", "/api/leaderboard/", "/api/games/", "/api/invitations/"):
        operation = schema["paths"][path]["get"]
        parameters = {p["name"]: p["schema"] for p in operation["parameters"]}
        assert parameters["page"] == {"type": "integer", "minimum": 1}, path
        assert parameters["page_size"] == {"type": "integer", "minimum": 1, "maximum": 100}
        assert "400" in operation["responses"], path
