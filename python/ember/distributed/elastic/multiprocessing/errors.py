"""torch.distributed.elastic.multiprocessing.errors.record: a worker's main
function decorated with it writes an uncaught exception to the launcher's
error file (EMBER_ERROR_FILE, which ember-run sets) before re-raising it,
so the launcher names the failing rank and its error."""

import functools
import os

from ..._error_file import ERROR_FILE_VARIABLE, record_error

__all__ = ["record"]


def record(fn=None, error_handler=None):
    """Decorator (also as record()) for a worker's entry point."""
    if fn is None:
        return functools.partial(record, error_handler=error_handler)

    @functools.wraps(fn)
    def recorded(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except SystemExit as exit_:
            if exit_.code in (None, 0):
                raise
            _write(exit_)
            raise
        except BaseException as error:
            _write(error)
            raise

    return recorded


def _write(error):
    path = os.environ.get(ERROR_FILE_VARIABLE)
    if path:
        record_error(path, type(error), error, error.__traceback__)
