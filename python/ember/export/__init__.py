"""Ahead-of-time export: a function or module captured once into a graph of
catalogue ops with its weights, saved to one file that the runtime runs
without Python (docs/export.md)."""

import os

from ._dims import Dim
from ._program import ExportedProgram
from ._trace import export

__all__ = ["Dim", "ExportedProgram", "export", "load", "save"]


def save(ep, path):
    """Writes `ep` to `path` as one safetensors file whose metadata holds the
    graph (docs/export.md); atomic, so a failed save leaves `path` as it was."""
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"export.save: expected an ExportedProgram, got {type(ep).__name__}")
    ep._program.save(os.fspath(path))


def load(path):
    """Reads a file export.save wrote. Nothing in the file runs as code: a
    malformed, truncated or hostile file is a ValueError naming what is wrong."""
    from .. import _C
    return ExportedProgram(_C._export_load(os.fspath(path)))
