import subprocess
import sys
from pathlib import Path


def test_rules_engine_imports_no_django():
    """The engine is pure rules: importing all of it must not pull in Django, DRF or Celery."""
    program = (
        "import importlib, pkgutil, sys\n"
        "import azul as engine\n"
        "for module in pkgutil.walk_packages(engine.__path__, 'azul.'):\n"
        "    importlib.import_module(module.name)\n"
        "top = {name.split('.')[0] for name in sys.modules}\n"
        "leaked = sorted(top & {'django', 'rest_framework', 'celery'})\n"
        "print(','.join(leaked))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"azul imports {result.stdout.strip()}"
