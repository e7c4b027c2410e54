import subprocess
import sys
from pathlib import Path

SITE = {
    "django",
    "rest_framework",
    "celery",
    "azul_site",
    "core",
    "accounts",
    "games",
    "notifications",
    "ratings",
    "analysis",
}
"""Django, DRF, Celery and every package of the site."""


def _site_packages_imported_by(package: str) -> list[str]:
    """The packages of :data:`SITE` that importing every module of ``package`` pulls in (in a
    fresh interpreter, so that nothing the tests imported counts)."""
    program = (
        "import importlib, pkgutil, sys\n"
        f"import {package} as package\n"
        f"for module in pkgutil.walk_packages(package.__path__, '{package}.'):\n"
        "    importlib.import_module(module.name)\n"
        "top = {name.split('.')[0] for name in sys.modules}\n"
        f"print(','.join(sorted(top & set({sorted(SITE)!r}))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return [name for name in result.stdout.strip().split(",") if name]


def test_rules_engine_imports_no_django():
    """The engine is pure rules: importing all of it (the computer players too) must not pull in
    Django, DRF, Celery or any package of the site."""
    assert _site_packages_imported_by("azul") == []


def test_the_research_imports_only_the_rules_engine():
    """The arena, the engine benchmark, the UCT yardstick and the tuning and training tools
    (`research/`) use the engine alone."""
    assert _site_packages_imported_by("research") == []


def test_the_import_contracts_are_kept():
    """Which package may import which (`[tool.importlinter]` in pyproject.toml, also run by `make
    lint`): the rules library imports nothing of the site, apps depend one way, and no app
    imports another's pages, API or serializers."""
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stdout + result.stderr
