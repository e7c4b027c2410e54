"""Screenshots of the board for the README, in docs/screenshots/: `make screenshots`.

Runs the browser test that makes them (tests/e2e/test_screenshots.py, skipped unless
AZUL_SCREENSHOTS names the folder to write) on a fresh test database, as the other browser tests
run: Playwright driving Debian's Chromium against a live server, a new game against the computer
played to a round's end, mid-game and game over, each drawn on a desktop (1280x900) and a phone
(390x844), mid-game in dark mode too. Needs PostgreSQL (DATABASE_URL, as `make test`) and the
`chromium` package. `--out <folder>` writes them there instead (CI's smoke test does, so that
docs/screenshots/ is left as committed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the folder (docs/screenshots/)")
    out = parser.parse_args().out.resolve()
    env = {**os.environ, "AZUL_SCREENSHOTS": str(out)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["tests/e2e/test_screenshots.py", "-rs", "--show-capture=no"]
    status = subprocess.call(command, cwd=ROOT, env=env)
    if status == 0:
        for png in sorted(out.glob("*.png")):
            print(png.relative_to(ROOT) if png.is_relative_to(ROOT) else png)
    return status


if __name__ == "__main__":
    sys.exit(main())
