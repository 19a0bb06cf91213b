"""Fuzz target: a plugin wheel's entry-point metadata (python/ember/_plugins.py).
Each input is the JSON value an entry point's object gives (or, when it is
not JSON, that text as a path); reading it as a plugin spec and checking its
ABI may only refuse it with TypeError (not a spec) or RuntimeError (another
ABI major), the two failures autoload reports as the plugin's reason."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import python_fuzz  # noqa: E402

from ember import _plugins  # noqa: E402


class EntryPoint:
    name = "fuzzed"
    value = "fuzzed_module:spec"

    def __init__(self, spec):
        self.spec = spec

    def load(self):
        return self.spec


def test_one_input(data):
    text = data.decode("utf-8", errors="replace")
    try:
        spec = json.loads(text)
    except (ValueError, RecursionError):
        spec = text
    try:
        _plugins._check_abi(_plugins._plugin_spec(EntryPoint(spec)))
    except (TypeError, RuntimeError):
        pass


if __name__ == "__main__":
    python_fuzz.run(test_one_input, [_plugins])
