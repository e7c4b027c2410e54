"""/.well-known/security.txt (RFC 9116): where a security problem is reported (SECURITY.md)."""

from datetime import UTC, datetime, timedelta

import pytest


@pytest.mark.django_db
def test_it_names_the_contact_and_an_expiry_in_the_future(client, settings):
    settings.SECURITY_CONTACT = "security@example.org"
    settings.SITE_URL = "https://azul.example.org"

    response = client.get("/.well-known/security.txt")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    fields = dict(line.split(": ", 1) for line in response.content.decode().splitlines())
    assert fields["Contact"] == "mailto:security@example.org"
    assert fields["Canonical"] == "https://azul.example.org/.well-known/security.txt"
    expires = datetime.strptime(fields["Expires"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    # RFC 9116: in the future, and less than a year away.
    assert timedelta(days=30) < expires - datetime.now(UTC) < timedelta(days=365)
