"""ember.distributed: torch.distributed's key-value stores, rendezvous,
process groups and collectives, and the `ember-run` launcher's worker side.

Stores (`TCPStore`, `FileStore`, `HashStore`, `PrefixStore`) are the
runtime's own (runtime/src/distributed); `rendezvous` turns an init method
(`env://`, `tcp://host:port`, `file://path`) into a store, a rank and a
world size. Process groups run their collectives on engine plugins ("gloo");
the object collectives (`all_gather_object` and the rest) pickle objects
into tensors for them.
"""

from ember._C import DistBackendError, DistError, DistStoreError
from ember._C._distributed import FileStore, HashStore, PrefixStore, Store, TCPStore

from . import algorithms, checkpoint
from .grad_bucket import GradBucket
from ._error_file import install_error_file_hook
from ._object_collectives import *  # noqa: F401,F403
from ._object_collectives import __all__ as _object_collectives_all
from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import __all__ as _c10d_all
from .rendezvous import register_rendezvous_handler, rendezvous

install_error_file_hook()

__all__ = ["DistBackendError", "DistError", "DistStoreError", "FileStore", "HashStore", "PrefixStore", "Store",
           "TCPStore", "GradBucket", "algorithms", "checkpoint", "register_rendezvous_handler",
           "rendezvous"] + _c10d_all + _object_collectives_all


def __getattr__(name):
    # ember.distributed.optim loads on first use: it imports ember.optim, which imports nn modules that import
    # this package.
    if name == "optim":
        import importlib

        return importlib.import_module(f"{__name__}.optim")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
