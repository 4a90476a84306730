"""The documents stay short and true (issue 42).

- Every command `benchmarks/README.md` gives runs: its `--help` exits 0 and names every option the README's
  command line uses (a renamed or dropped option fails here, naming the command).
- Every script in `benchmarks/` has its table in that README.
- `README.md` is read in two minutes: at most 150 lines, no commit hash, no dated figure (it links to them).
- No paragraph of `docs/ARCHITECTURE.md` is over 130 words: long ones become tables and lists.

The parsers are checked on small bad inputs too, so that a check that cannot fail is seen.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS_README = ROOT / "benchmarks" / "README.md"
README_LINES = 150
PARAGRAPH_WORDS = 120

CODE_SPAN = re.compile(r"`([^`\n]+)`")
SCRIPT = re.compile(r"(?<![\w/.-])(benchmarks/[\w-]+\.py)(?![\w.-])")
SUBCOMMAND = re.compile(r"(?<![\w-])stud-table\s+([a-z][a-z-]*)")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
#: a word of 7 to 40 hexadecimal digits holding a digit and a letter: what a commit's hash looks like
COMMIT_HASH = re.compile(r"(?<![\w-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])")
DATE = re.compile(r"(?<!\d)(?:19|20)\d\d-\d\d-\d\d(?!\d)")
LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+\.)\s")


def commands_in(text: str) -> dict[str, set[str]]:
    """Each command the text's code spans run (``benchmarks/X.py`` or ``stud-table SUB``) -> the options its
    spans give it. A span runs the first command it names; the options are those after it."""
    commands: dict[str, set[str]] = {}
    for span in CODE_SPAN.findall(text):
        found = [(m.start(), m.group(1)) for m in SCRIPT.finditer(span)]
        found += [(m.start(), f"stud-table {m.group(1)}") for m in SUBCOMMAND.finditer(span)]
        if found:
            start, command = min(found)
            commands.setdefault(command, set()).update(OPTION.findall(span[start:]))
    return commands


def help_command(command: str) -> list[str]:
    if command.startswith("stud-table "):
        return [sys.executable, "-m", "controller.cli", command.split()[1], "--help"]
    return [sys.executable, str(ROOT / command), "--help"]


def missing_options(help_text: str, options: set[str]) -> list[str]:
    """The options a help text does not name (``--camera`` is not named by ``--camera-size``)."""
    return sorted(option for option in options
                  if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text))


def readme_problems(text: str) -> list[str]:
    lines = text.splitlines()
    problems = [f"{len(lines)} lines (at most {README_LINES})"] if len(lines) > README_LINES else []
    for number, line in enumerate(lines, 1):
        problems += [f"line {number}: commit hash {word}" for word in COMMIT_HASH.findall(line)]
        problems += [f"line {number}: date {date}" for date in DATE.findall(line)]
    return problems


def paragraphs(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each paragraph: consecutive non-blank lines that are not table rows, headings or code
    (fenced); a list item starts a paragraph of its own, its continuation lines with it."""
    found: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced, current = not fenced, None
            continue
        if fenced or not stripped or stripped.startswith(("#", "|")):
            current = None
            continue
        if current is None or LIST_ITEM.match(line):
            current = []
            found.append((number, current))
        current.append(stripped)
    return [(number, " ".join(lines)) for number, lines in found]


def long_paragraphs(text: str, limit: int = PARAGRAPH_WORDS) -> list[str]:
    return [f"line {number}: {len(words.split())} words: {words[:60]}..."
            for number, words in paragraphs(text) if len(words.split()) > limit]


BENCHMARK_COMMANDS = commands_in(BENCHMARKS_README.read_text()) if BENCHMARKS_README.exists() else {}


@pytest.mark.parametrize("command", sorted(BENCHMARK_COMMANDS))
def test_a_benchmark_command_runs_with_its_options(command):
    result = subprocess.run(help_command(command), cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{command} --help: exit {result.returncode}\n{result.stderr[-2000:]}"
    assert missing_options(result.stdout, BENCHMARK_COMMANDS[command]) == [], f"{command} --help"


def test_every_benchmark_script_has_its_table():
    scripts = {f"benchmarks/{path.name}" for path in (ROOT / "benchmarks").glob("*.py")}
    assert scripts, "no benchmark script found"
    assert sorted(scripts - set(BENCHMARK_COMMANDS)) == []
    assert "stud-table eval-vision" in BENCHMARK_COMMANDS


def test_readme_is_short_and_undated():
    assert readme_problems((ROOT / "README.md").read_text()) == []


def test_no_long_paragraph_in_the_architecture():
    assert long_paragraphs((ROOT / "docs" / "ARCHITECTURE.md").read_text()) == []


# --- the checks themselves, on bad inputs ------------------------------------------------------------------------


def test_commands_are_read_from_code_spans():
    text = ("Run `.venv/bin/python benchmarks/chips.py --json --built-stacks` then `benchmarks/bus.py --keys`;\n"
            "| x | `.venv/bin/stud-table eval-vision --manifest m.csv --both` | `--replay-all` alone | `x.py --no` |\n"
            "`benchmarks/camera_conformance.py --script benchmarks/stacked.toml --camera-size 3840x2160`\n"
            "`stud-table engine --replay-all`, and --outside a span.")
    assert commands_in(text) == {
        "benchmarks/chips.py": {"--json", "--built-stacks"},
        "benchmarks/bus.py": {"--keys"},
        "stud-table eval-vision": {"--manifest", "--both"},
        "benchmarks/camera_conformance.py": {"--script", "--camera-size"},
        "stud-table engine": {"--replay-all"},
    }


def test_a_missing_option_is_named():
    help_text = "usage: chips.py [-h] [--json] [--camera-size WIDTHxHEIGHT]\n  --json\n"
    assert missing_options(help_text, {"--json", "--camera-size", "--camera", "--built-stacks"}) == [
        "--built-stacks", "--camera"]


def test_a_help_command_that_fails_is_seen():
    result = subprocess.run(help_command("stud-table no-such-command"), cwd=ROOT, capture_output=True, text=True)
    assert result.returncode != 0


def test_a_bad_readme_is_refused():
    assert readme_problems("# ok\n3840x2160, deadline, 1.2.3, sha256\n") == []
    problems = readme_problems("x\n" * 151 + "measured 2026-12-07 at commit 8acb0fe (and 4f688bb)\n")
    assert problems == ["152 lines (at most 150)", "line 152: commit hash 8acb0fe", "line 152: commit hash 4f688bb",
                        "line 152: date 2026-12-07"]


def test_a_long_paragraph_is_found():
    long = " ".join(["word"] * 131)
    text = (f"# Title\n\n{' '.join(['word'] * 70)}\n{' '.join(['word'] * 61)}\n\n| {long} |\n\n```\n{long}\n```\n\n"
            f"- a short item\n- {' '.join(['w'] * 60)}\n  {' '.join(['w'] * 59)}\n1. {long}\n")
    assert [number for number, _ in paragraphs(text)] == [3, 12, 13, 15]
    assert [problem.split(":")[0] for problem in long_paragraphs(text)] == ["line 3", "line 15"]
    assert long_paragraphs(text, limit=120) == long_paragraphs(text)  # the item of 120 words ("-" and 119) is not over
    assert "line 13" in " ".join(long_paragraphs(text, limit=119))
