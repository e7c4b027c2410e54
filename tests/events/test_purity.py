"""The event formats are pure: importing all of them pulls in nothing of Django, DRF, Celery or
the site (the import contract `event-formats` says the same of the imports themselves)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = {
    "django", "rest_framework", "celery", "azul", "azul_site", "core", "accounts", "games",
    "notifications", "ratings", "analysis", "chat", "research",
}  # fmt: skip


def test_the_formats_import_nothing_of_django_or_the_site():
    program = (
        "import importlib, pkgutil, sys\n"
        "import events.formats as package\n"
        "for module in pkgutil.walk_packages(package.__path__, 'events.formats.'):\n"
        "    importlib.import_module(module.name)\n"
        "print(','.join(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60
    )

    assert result.returncode == 0, result.stderr
    imported = set(result.stdout.strip().split(","))
    assert "networkx" in imported
    assert not imported & FORBIDDEN, sorted(imported & FORBIDDEN)
