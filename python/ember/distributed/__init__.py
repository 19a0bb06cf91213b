"""ember.distributed: torch.distributed's key-value stores, rendezvous and
the `ember-run` launcher's worker side.

Stores (`TCPStore`, `FileStore`, `HashStore`, `PrefixStore`) are the
runtime's own (runtime/src/distributed); `rendezvous` turns an init method
(`env://`, `tcp://host:port`, `file://path`) into a store, a rank and a
world size. Process groups and collectives build on these.
"""

from ember._C import DistBackendError, DistError, DistStoreError
from ember._C._distributed import FileStore, HashStore, PrefixStore, Store, TCPStore

from ._error_file import install_error_file_hook
from .rendezvous import register_rendezvous_handler, rendezvous


def is_available():
    """Whether ember.distributed works in this build: the stores are part of
    the core, so always True."""
    return True


install_error_file_hook()

__all__ = ["DistBackendError", "DistError", "DistStoreError", "FileStore", "HashStore", "PrefixStore", "Store",
           "TCPStore", "is_available", "register_rendezvous_handler", "rendezvous"]
