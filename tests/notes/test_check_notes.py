"""scripts/check_notes.py on small trees: what counts as a citation and as a
definition, and that an undefined citation or a second definition fails
naming file:line."""

import os
import subprocess
import sys

import pytest

CHECK_NOTES = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "check_notes.py")


def note(title):
    # Built at run time so that this file cites nothing itself.
    return f"Note [{title}]"


def run_check(root):
    return subprocess.run([sys.executable, CHECK_NOTES, str(root)], capture_output=True, text=True, timeout=60)


def write(root, path, text):
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)


def test_citations_of_defined_notes_pass(tmp_path):
    write(tmp_path, "runtime/a.h", f"// {note('Alpha')}\n// Why alpha.\n")
    write(tmp_path, "python/b.py", f"# {note('Beta beta')}: why beta.\n")
    write(tmp_path, "docs/c.md", f"## {note('Gamma')}\n\nWhy gamma.\n")
    write(tmp_path, "sdk/d.h", f"/*\n * {note('Delta')}: why delta.\n */\n")
    # Citations, one wrapped over comment lines and one over Markdown lines.
    write(tmp_path, "plugins/e.cpp",
          f"int x;  // ({note('Alpha')})\n// see (Note\n// [Beta\n// beta]) and {note('Delta')}\n")
    write(tmp_path, "docs/f.md", f"As {note('Gamma')}\nsays, and Note\n[Beta beta].\n")
    result = run_check(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_undefined_citation_fails_naming_file_and_line(tmp_path):
    write(tmp_path, "runtime/a.h", f"// {note('Alpha')}\n// Why alpha.\n")
    write(tmp_path, "runtime/src/b.cpp", "int y;\n\n// wrapped (Note\n// [Missing\n// one]) here\n")
    write(tmp_path, "samples/c.py", f"x = 1  # {note('Alpha')} and {note('Absent')}\n")
    result = run_check(tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and lines[2] == "2 problem(s) with design notes", result.stdout
    assert lines[0].startswith(os.path.join("runtime", "src", "b.cpp") + ":3: " + note("Missing one"))
    assert lines[1].startswith(os.path.join("samples", "c.py") + ":1: " + note("Absent"))


def test_a_citation_is_not_its_own_definition(tmp_path):
    # A comment line that starts with a citation but goes on with prose is a
    # citation, not a definition; only "Note [...]" alone or with a colon defines.
    write(tmp_path, "tests/a.cpp", f"// {note('Alpha')} in loader.cpp: the library stays loaded\n")
    result = run_check(tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith(os.path.join("tests", "a.cpp") + ":1: " + note("Alpha"))


def test_a_second_definition_fails(tmp_path):
    write(tmp_path, "plugins/a.cpp", f"// {note('Alpha')}\n// Why alpha.\n")
    write(tmp_path, "runtime/b.h", f"int z;\n// {note('Alpha')}: why alpha, again.\n")
    result = run_check(tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith(os.path.join("runtime", "b.h") + ":2: " + note("Alpha") +
                                    " is defined a second time (first in " + os.path.join("plugins", "a.cpp") + ":1)")


def test_build_and_hidden_folders_are_not_searched(tmp_path):
    write(tmp_path, "python/build/x.py", f"# {note('Absent')}\n")
    write(tmp_path, "python/.venv/y.py", f"# {note('Absent')}\n")
    write(tmp_path, "build/z.h", f"// {note('Absent')}\n")
    result = run_check(tmp_path)
    assert result.returncode == 0, result.stdout
