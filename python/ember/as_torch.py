"""Run a PyTorch program unchanged on Ember: `import torch` gives `ember`.

    python -m ember.as_torch train.py --epochs 3
    python -m ember.as_torch -m package.trainer --epochs 3
    ember-run --nproc-per-node 2 -m ember.as_torch train.py   (a torchrun program)

or, inside a program, before its first `import torch`:

    import ember.as_torch
    ember.as_torch.install()

`import ember as torch` covers a program's own `torch.` names, but not the
lines PyTorch programs write beside it (`import torch.nn as nn`,
`from torch.utils.data import DataLoader`): those import `torch.nn` by its
full name. After `install()`, `torch` is the `ember` module and every
`torch.<name>` module is the `ember.<name>` module itself (one module object
under two names, so `torch.nn.Module is ember.nn.Module`); a submodule Ember
does not have is a ModuleNotFoundError that names both.

The command line also puts a `torch` package that installs the alias on
PYTHONPATH, so the processes the program starts (DataLoader workers,
`multiprocessing` with spawn, `ember-run` workers) see the same `torch`.
"""

import importlib
import importlib.abc
import importlib.machinery
import os
import runpy
import sys

# The folder holding the `torch` package that calls install() (Note [The
# torch package on PYTHONPATH]).
SHIM_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_torch_shim")

_PREFIX = "torch."


class _EmberModuleLoader(importlib.abc.Loader):
    """Hands the import system the already imported `ember.<name>` module."""

    def __init__(self, module):
        self._module = module
        self._spec = module.__spec__

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # module_from_spec set the alias's spec on the shared module object;
        # the module keeps its own, so pickling and reloading see `ember.*`.
        module.__spec__ = self._spec


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    # Recognised by this mark rather than by class: `python -m ember.as_torch`
    # runs this file as __main__, a second copy of the class.
    is_ember_torch_alias = True

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        ember_name = "ember." + fullname[len(_PREFIX):]
        try:
            module = importlib.import_module(ember_name)
        except ModuleNotFoundError as error:
            if error.name != ember_name:
                raise
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: Ember has no {ember_name!r} (ember.as_torch maps torch.<name> "
                f"to ember.<name>)", name=fullname) from None
        return importlib.machinery.ModuleSpec(fullname, _EmberModuleLoader(module),
                                              is_package=hasattr(module, "__path__"))


def _is_alias_installed():
    return any(getattr(finder, "is_ember_torch_alias", False) for finder in sys.meta_path)


def install():
    """Make `import torch` and `import torch.<name>` give Ember's modules.

    Raises RuntimeError if PyTorch itself is already imported in this
    process: its modules would then mix with Ember's.
    """
    import ember

    current = sys.modules.get("torch")
    if current is not None and current is not ember and not getattr(current, "is_ember_torch_shim", False):
        raise RuntimeError(
            f"ember.as_torch.install(): PyTorch is already imported in this process (from "
            f"{getattr(current, '__file__', None)!r}); install the alias before the first `import torch`")
    sys.modules["torch"] = ember
    if not _is_alias_installed():
        sys.meta_path.insert(0, _TorchAliasFinder())


# Note [The torch package on PYTHONPATH]: a process the program starts with
# spawn or a launcher begins with a fresh interpreter, which imports the
# program's main module, and so its `import torch`, before any code of ours
# could run. A `torch` package placed first on PYTHONPATH is what it finds
# then; it installs the alias, which makes `torch` Ember in that process too.
def _export_shim_path():
    paths = os.environ.get("PYTHONPATH", "")
    entries = [entry for entry in paths.split(os.pathsep) if entry]
    if SHIM_PATH not in entries:
        os.environ["PYTHONPATH"] = os.pathsep.join([SHIM_PATH] + entries)
    if SHIM_PATH not in sys.path:
        sys.path.insert(0, SHIM_PATH)


_USAGE = "usage: python -m ember.as_torch (program.py | -m module) [arguments ...]"


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0] + "\n\n" + _USAGE)
        return 0 if argv else 2
    run_module = argv[0] == "-m"
    if run_module and len(argv) < 2:
        print(_USAGE, file=sys.stderr)
        return 2
    target = argv[1] if run_module else argv[0]
    if not run_module and not os.path.exists(target):
        print(f"python -m ember.as_torch: no such program {target!r}", file=sys.stderr)
        return 2
    _export_shim_path()
    install()
    if run_module:
        sys.argv = argv[1:]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        # As `python program.py` does: the program's folder comes first on the path.
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
