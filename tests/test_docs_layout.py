"""The README's parts diagram and its folder list ("How the parts fit", "The folders")
agree with the folders themselves: every top-level folder, and every package folder
inside a top-level package, is listed once with its job, and the diagram names every
top-level package and no folder that does not exist. A folder added, removed or renamed
on either side fails here."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def section(text: str, heading: str) -> str:
    """The first fenced block after `heading`."""
    after = text.split(heading, 1)[1]
    block = re.search(r"^```[^\n]*\n(.*?)^```", after, re.MULTILINE | re.DOTALL)
    assert block, f"no code block after {heading!r}"
    return block.group(1)


def listed(text: str) -> set[str]:
    """The folders of the README's list: `advisor/` at the margin, `render/` under it as
    `advisor/render/`."""
    found, parent = set(), ""
    for line in section(text, "### The folders").splitlines():
        entry = re.match(r"^( *)([\w-]+)/(?:\s|$)", line)
        if not entry:
            continue
        if entry.group(1):
            assert parent, f"an indented folder before any top-level one: {line!r}"
            found.add(f"{parent}{entry.group(2)}/")
        else:
            parent = f"{entry.group(2)}/"
            found.add(parent)
    return found


def folders(files: Iterable[str]) -> set[str]:
    """The folders the list must hold, from the repository's file paths: each top-level
    folder (not hidden), and each package inside a top-level package."""
    files = set(files)
    found = set()
    for path in files:
        parts = path.split("/")
        if len(parts) < 2 or parts[0].startswith("."):
            continue
        found.add(f"{parts[0]}/")
        if len(parts) == 3 and parts[2] == "__init__.py" and f"{parts[0]}/__init__.py" in files:
            found.add(f"{parts[0]}/{parts[1]}/")
    return found


def repository_files() -> list[str]:
    """Tracked files and new ones not ignored, so a folder counts before it is committed."""
    result = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [path for path in result.stdout.splitlines() if (ROOT / path).exists()]


def diagram_folders(text: str) -> set[str]:
    """The folders the parts diagram names (`bot/components/`, `answers/`)."""
    return set(re.findall(r"(?<![\w./-])((?:[\w-]+/)+)(?![\w*])", section(text, "## How the parts fit")))


def test_the_readme_lists_every_folder_and_no_other() -> None:
    assert listed(README.read_text(encoding="utf-8")) == folders(repository_files())


def test_the_parts_diagram_names_every_package_and_only_folders_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    real = folders(repository_files())
    packages = {f"{path.parent.name}/" for path in ROOT.glob("*/__init__.py")} - {"tests/"}
    named = diagram_folders(text)
    assert packages - named == set(), "top-level packages missing from the diagram"
    subfolders = {folder.split("/")[1] + "/" for folder in real if folder.count("/") == 2}
    assert {folder for folder in named if folder not in real and folder not in subfolders} == set()


def test_a_folder_added_or_removed_on_either_side_is_caught() -> None:
    text = README.read_text(encoding="utf-8")
    files = repository_files()
    assert listed(text) == folders(files)
    assert listed(text) != folders([*files, "pricing/__init__.py"])  # a new top-level package
    assert listed(text) != folders([*files, "advisor/quotes/__init__.py"])  # a new folder of the service
    assert listed(text) != folders([path for path in files if not path.startswith("minilm/")])  # one removed
    unlisted = text.replace("\n  answers/ ", "\n  answer_lines/ ", 1)  # renamed in the README only
    assert listed(unlisted) != folders(files)


def test_the_list_reads_nested_folders_under_their_parent() -> None:
    text = "### The folders\n\n```\nadvisor/   the service\n  render/  renderers\napi/  the API\n```\n"
    assert listed(text) == {"advisor/", "advisor/render/", "api/"}
    assert folders(
        ["advisor/__init__.py", "advisor/render/__init__.py", "advisor/render/data/x.yaml", "api/app.py"]
    ) == {
        "advisor/",
        "advisor/render/",
        "api/",
    }
