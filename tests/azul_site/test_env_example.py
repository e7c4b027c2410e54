"""What `.env.example` shows works as it says, run as a deployment would (a fresh process)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_filemail_example_writes_to_the_absolute_folder_it_names(tmp_path):
    example = re.search(r"filemail:\S*/absolute/folder", (ROOT / ".env.example").read_text())
    assert example is not None
    folder = tmp_path / "mail"
    url = example.group(0).replace("/absolute/folder", str(folder))
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    # Run from elsewhere than the project folder: a relative path would land there.
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()

    result = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "sendtestemail", "someone@example.org"],
        cwd=elsewhere,
        env={**env, "EMAIL_URL": url},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    (written,) = folder.iterdir()
    assert "someone@example.org" in written.read_text()
    assert list(elsewhere.iterdir()) == []
