"""The worker side of `ember-run`'s error files: when the launcher sets
EMBER_ERROR_FILE, an uncaught exception in the worker is written there as
JSON (type, message, traceback) before the previous excepthook runs, so that
the launcher can say what failed in which rank."""

import json
import os
import sys
import time
import traceback

ERROR_FILE_VARIABLE = "EMBER_ERROR_FILE"


def write_error_file(path, exc_type, exc_value, exc_traceback):
    """Writes the exception to `path` through a temporary file and a rename,
    so that the launcher never reads half a record."""
    record = {
        "type": exc_type.__qualname__ if exc_type.__module__ == "builtins"
        else f"{exc_type.__module__}.{exc_type.__qualname__}",
        "message": str(exc_value),
        "traceback": "".join(traceback.format_exception(exc_type, exc_value, exc_traceback)),
        "pid": os.getpid(),
        "timestamp": time.time(),
    }
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump(record, out)
    os.replace(temporary, path)


def record_error(path, exc_type, exc_value, exc_traceback):
    """write_error_file, saying on stderr when the file cannot be written (the error itself goes on)."""
    try:
        write_error_file(path, exc_type, exc_value, exc_traceback)
    except OSError as error:
        print(f"ember.distributed: cannot write the error file {path}: {error}", file=sys.stderr)


def install_error_file_hook():
    """Chains a sys.excepthook that writes EMBER_ERROR_FILE, when that is set;
    installing twice keeps one hook."""
    path = os.environ.get(ERROR_FILE_VARIABLE)
    if not path or getattr(sys.excepthook, "_ember_error_file", False):
        return
    previous = sys.excepthook

    def hook(exc_type, exc_value, exc_traceback):
        record_error(path, exc_type, exc_value, exc_traceback)
        previous(exc_type, exc_value, exc_traceback)

    hook._ember_error_file = True
    sys.excepthook = hook
