#!/usr/bin/env python3
"""Fails naming file:line for every design-note citation whose note is defined
nowhere in the tree, and for every second definition of a note.

Code cites a design decision by its title in square brackets after the word
Note, and defines it once as a comment block whose first line begins with the
citation (after `//`, `#` or `*`; a Markdown heading counts too), optionally
followed by a colon and the first sentence. A citation may wrap over comment
lines; the title is compared with its whitespace collapsed.

    check_notes.py [ROOT]    # ROOT defaults to the repository holding this script
"""

import argparse
import os
import re
import sys

SEARCHED_FOLDERS = ("cmake", "docs", "plugins", "python", "runtime", "samples", "sdk", "tests")
SEARCHED_SUFFIXES = (".c", ".cc", ".cl", ".cmake", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".in", ".md",
                     ".py", ".sh", ".toml", ".txt")

# What joins a wrapped citation's lines: the line break, indentation and the
# comment leader of the next line.
LINE_JOIN = r"\n[ \t]*(?://+|#+|\*+(?!/))?[ \t]*"
# A title starts with a letter or digit, so a format string such as
# "Note [{title}]" is not a citation.
CITATION = re.compile(rf"\bNote(?:[ \t]|{LINE_JOIN})+\[([A-Za-z0-9][^\]\[\n]*(?:{LINE_JOIN}[^\]\[\n]*)*)\]")
DEFINITION = re.compile(r"^\s*(?://+|#+|/?\*+)\s*Note \[([A-Za-z0-9][^\]\[]*)\]\s*(?::|$)")


def searched_files(root):
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if os.path.isfile(path) and (name.endswith(".md") or name == "CMakeLists.txt"):
            yield path
    for folder in SEARCHED_FOLDERS:
        for directory, subfolders, files in os.walk(os.path.join(root, folder)):
            subfolders[:] = sorted(s for s in subfolders if not _is_skipped(s))
            for name in sorted(files):
                if name.endswith(SEARCHED_SUFFIXES):
                    yield os.path.join(directory, name)


def _is_skipped(folder):
    # Build outputs, virtual environments and caches hold copies of the tree.
    return folder.startswith((".", "build")) or folder in ("__pycache__", "node_modules")


def normalised(title):
    return " ".join(title.split())


def scan(text):
    """Returns (definitions, citations): each as (title, line number)."""
    definitions = [(normalised(m.group(1)), number) for number, line in enumerate(text.splitlines(), start=1)
                   if (m := DEFINITION.match(line))]
    citations = []
    for match in CITATION.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        citations.append((normalised(re.sub(LINE_JOIN, " ", match.group(1))), line))
    return definitions, citations


def note_problems(root):
    """Each problem as `path:line: what is wrong`, in the order of the files."""
    defined = {}
    problems = []
    cited = []
    for path in searched_files(root):
        with open(path, encoding="utf-8", errors="replace") as file:
            text = file.read()
        definitions, citations = scan(text)
        where = os.path.relpath(path, root)
        for title, line in definitions:
            if title in defined:
                problems.append(f"{where}:{line}: Note [{title}] is defined a second time (first in "
                                f"{defined[title]}): cite it there instead")
            else:
                defined[title] = f"{where}:{line}"
        cited.extend((where, line, title) for title, line in citations)
    problems.extend(f"{where}:{line}: Note [{title}] is cited but defined nowhere (define it once: a comment "
                    f"block whose first line is `Note [{title}]`)"
                    for where, line, title in cited if title not in defined)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = parser.parse_args().root
    problems = note_problems(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) with design notes")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
