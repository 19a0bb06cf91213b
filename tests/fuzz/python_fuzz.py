"""What the Python fuzz targets share: atheris (libFuzzer for Python) with
coverage from the loader modules only, and the rule every target checks: a
malformed input is refused with the loader's documented exception, and any
other exception is a bug that atheris reports with the input that caused it.
A target runs as `python3 tests/fuzz/fuzz_<name>.py [libFuzzer flags]
[corpus dirs]` (tests/fuzz/run_fuzzers.py gives the flags)."""

import sys


def run(test_one_input, modules):
    import atheris

    for module in modules:
        for value in list(vars(module).values()):
            if callable(value) and getattr(value, "__module__", None) == module.__name__ and hasattr(value, "__code__"):
                atheris.instrument_func(value)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
