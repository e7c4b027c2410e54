"""What the image holds, read from the Dockerfile and .dockerignore (no Docker engine needed): every
package pyproject.toml installs is copied before the install, what runs beside them is copied by
name, and nothing of the tests, the research or the scripts goes in (issue #60)."""

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Never in the image: checked against the Dockerfile's COPY lines and .dockerignore.
LEFT_OUT = ("tests", "research", "scripts")


def instructions() -> list[tuple[str, list[str]]]:
    """(INSTRUCTION, its words) for each instruction of the Dockerfile, continuation lines
    joined."""
    found: list[tuple[str, list[str]]] = []
    pending = ""
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, *words = (pending + line).split()
        found.append((keyword.upper(), words))
        pending = ""
    return found


def copied_before_install() -> tuple[set[str], set[str]]:
    """The sources of the COPY lines before the site's `pip install .`, and after it."""
    before: set[str] = set()
    after: set[str] = set()
    installed = False
    for keyword, words in instructions():
        if keyword == "RUN" and "install" in words and "." in words:
            installed = True
        elif keyword == "COPY":
            sources = [w for w in words[:-1] if not w.startswith("--")]
            (after if installed else before).update(s.rstrip("/") for s in sources)
    return before, after


def installed_packages() -> set[str]:
    """The top-level packages pyproject.toml installs (its setuptools `include`)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = data["tool"]["setuptools"]["packages"]["find"]["include"]
    return {name for name in include if "*" not in name and "." not in name}


def ignored() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip().rstrip("/") for line in lines if line.strip() and line[0] != "#"]


def test_every_installed_package_is_copied_before_the_install():
    before, _ = copied_before_install()
    packages = installed_packages()
    assert packages >= {"azul", "core", "accounts", "games", "chat", "azul_site"}
    assert packages <= before, f"no COPY before the install for {sorted(packages - before)}"


def test_every_top_level_package_is_installed_or_left_out_of_the_image():
    """A new app (a folder with an __init__.py) is either installed, and so copied, or named in
    .dockerignore: none is forgotten as chat once was."""
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    forgotten = packages - installed_packages() - set(ignored())
    assert not forgotten, f"neither installed nor in .dockerignore: {sorted(forgotten)}"


def test_the_image_copies_what_runs_and_nothing_of_the_tests_research_or_scripts():
    before, after = copied_before_install()
    copied = before | after
    assert "." not in copied, "COPY . . would take the whole checkout"
    assert {"manage.py", "gunicorn.conf.py", "templates", "static", "locale"} <= after
    for source in copied:
        assert source.split("/")[0] not in LEFT_OUT, source
        assert (ROOT / source).exists(), source


def test_dockerignore_leaves_out_the_tests_research_and_scripts_but_nothing_copied():
    patterns = ignored()
    for folder in LEFT_OUT:
        assert folder in patterns, folder
    before, after = copied_before_install()
    for source in before | after:
        hit = [p for p in patterns if fnmatch.fnmatch(source, p) or source.startswith(p + "/")]
        assert not hit, f"{source} is copied but .dockerignore leaves it out ({hit})"
