"""Fuzz target: the safetensors reader (python/ember/_safetensors.py) reads
any bytes; a file that is not exactly a safetensors file is a ValueError
(Note [What a safetensors file must be])."""

import io
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import python_fuzz  # noqa: E402

from ember import _safetensors  # noqa: E402


def test_one_input(data):
    try:
        _safetensors.read(io.BytesIO(data), "the fuzz input")
    except ValueError:
        pass


if __name__ == "__main__":
    python_fuzz.run(test_one_input, [_safetensors])
