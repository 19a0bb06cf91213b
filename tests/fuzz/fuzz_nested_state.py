"""Fuzz target: the nested-state loader (python/ember/serialization.py,
_decode). Each input is the saved structure's JSON, put into a well-formed
safetensors file beside two tensors, 'a' and 'b', and loaded with
ember.load: anything it cannot read is a ValueError naming the structure."""

import io
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import python_fuzz  # noqa: E402

import ember  # noqa: E402
from ember import _safetensors, serialization  # noqa: E402

TENSORS = {"a": ember.arange(4.0), "b": ember.ones(2, 3, dtype=ember.int32)}


def file_with_structure(structure):
    stream = io.BytesIO()
    _safetensors.write(stream, TENSORS, {"ember.structure": structure})
    return stream.getvalue()


def test_one_input(data):
    structure = data.decode("utf-8", errors="replace")
    try:
        content = file_with_structure(structure)
    except ValueError:
        return  # a lone surrogate cannot be written, so it cannot be read either
    try:
        ember.load(io.BytesIO(content))
    except ValueError:
        pass


if __name__ == "__main__":
    python_fuzz.run(test_one_input, [serialization])
