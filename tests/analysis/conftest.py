import pytest
from django.test import override_settings


@pytest.fixture(autouse=True)
def _quick_analysis():
    """A short search per position: these tests are about the site's handling, not strength."""
    with override_settings(
        ANALYSIS_SECONDS_PER_GAME=0.5,
        ANALYSIS_MIN_SECONDS_PER_MOVE=0.01,
        ANALYSIS_MAX_SECONDS_PER_MOVE=0.05,
    ):
        yield
