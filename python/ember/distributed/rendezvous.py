"""Rendezvous: from an init method to a store, a rank and a world size, as
torch.distributed.rendezvous does.

    env://                       MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
    tcp://host:port[?rank=r&world_size=n]
    file:///path[?rank=r&world_size=n]

With env:// and tcp://, rank 0 hosts the TCPStore and the others connect to
it, unless the launcher already hosts one (`ember-run` sets
EMBER_STORE_HOSTED=1): then every rank is a client and the store outlives
any of them, and each rank sees it through a PrefixStore of the launcher's
attempt ("/worker/attempt_<EMBER_RESTART_COUNT>/"), so that a restarted gang
never reads the keys of the one before, as under torchrun.
"""

import datetime
import os
import urllib.parse

from ember._C._distributed import FileStore, PrefixStore, TCPStore

DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)
STORE_HOSTED_VARIABLE = "EMBER_STORE_HOSTED"
RESTART_COUNT_VARIABLE = "EMBER_RESTART_COUNT"

_handlers = {}


def register_rendezvous_handler(scheme, handler):
    """Registers `handler(parsed_url, query, timeout) -> (store, rank,
    world_size)` for init methods `scheme://...`, where `query` is the URL's
    query as a dict with the caller's rank and world_size put in; a scheme
    registers once."""
    if scheme in _handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _handlers[scheme] = handler


def rendezvous(init_method, rank=-1, world_size=-1, timeout=DEFAULT_TIMEOUT):
    """Returns (store, rank, world_size) for `init_method`. `rank` and
    `world_size` of -1 come from the URL's query or, for env://, from the
    environment; giving them both ways is a ValueError."""
    if not isinstance(init_method, str):
        raise TypeError(f"rendezvous: init_method must be a str, got {type(init_method).__name__}")
    if not isinstance(rank, int) or not isinstance(world_size, int):
        raise TypeError(f"rendezvous: rank and world_size must be int, got {type(rank).__name__} and "
                        f"{type(world_size).__name__}")
    parsed = urllib.parse.urlparse(init_method)
    handler = _handlers.get(parsed.scheme)
    if handler is None:
        raise RuntimeError(f"No rendezvous handler for {parsed.scheme}:// (init_method {init_method!r}); "
                           f"known: {', '.join(s + '://' for s in sorted(_handlers))}")
    query = dict(urllib.parse.parse_qsl(parsed.query))
    if (rank != -1 or world_size != -1) and ("rank" in query or "world_size" in query):
        raise ValueError(f"The url: {init_method} has node-specific arguments(rank, world_size) already.")
    if rank != -1:
        query["rank"] = str(rank)
    if world_size != -1:
        query["world_size"] = str(world_size)
    return handler(parsed, query, timeout)


def _error(scheme, message):
    return ValueError(f"Error initializing ember.distributed using {scheme}:// rendezvous: {message}")


def _integer(scheme, query, name, what):
    if name not in query:
        raise _error(scheme, f"{what} parameter missing")
    try:
        return int(query[name])
    except ValueError:
        raise _error(scheme, f"{what} must be an integer, got {query[name]!r}") from None


def _check_rank(scheme, rank, world_size):
    if world_size < 1:
        raise _error(scheme, f"world_size must be positive, got {world_size}")
    if not 0 <= rank < world_size:
        raise _error(scheme, f"rank {rank} is out of range for world_size {world_size}")


def _tcp_store(host, port, rank, world_size, timeout):
    if os.environ.get(STORE_HOSTED_VARIABLE) != "1":
        return TCPStore(host, port, world_size, is_master=rank == 0, timeout=timeout)
    client = TCPStore(host, port, world_size, is_master=False, timeout=timeout, wait_for_workers=False)
    attempt = os.environ.get(RESTART_COUNT_VARIABLE, "0")
    return PrefixStore(f"/worker/attempt_{attempt}", client)


def _tcp_handler(parsed, query, timeout):
    if not parsed.hostname:
        raise _error("tcp", "host name missing")
    try:
        port = parsed.port
    except ValueError as error:
        raise _error("tcp", f"bad port: {error}") from None
    if port is None:
        raise _error("tcp", "port number missing")
    rank = _integer("tcp", query, "rank", "rank")
    world_size = _integer("tcp", query, "world_size", "world size")
    _check_rank("tcp", rank, world_size)
    return _tcp_store(parsed.hostname, port, rank, world_size, timeout), rank, world_size


def _env_variable(name):
    value = os.environ.get(name)
    if value is None:
        raise _error("env", f"environment variable {name} expected, but not set")
    return value


def _env_integer(name):
    value = _env_variable(name)
    try:
        return int(value)
    except ValueError:
        raise _error("env", f"environment variable {name} must be an integer, got {value!r}") from None


def _env_handler(parsed, query, timeout):
    rank = int(query["rank"]) if "rank" in query else _env_integer("RANK")
    world_size = int(query["world_size"]) if "world_size" in query else _env_integer("WORLD_SIZE")
    master_addr = _env_variable("MASTER_ADDR")
    master_port = _env_integer("MASTER_PORT")
    _check_rank("env", rank, world_size)
    return _tcp_store(master_addr, master_port, rank, world_size, timeout), rank, world_size


def _file_handler(parsed, query, timeout):
    path = urllib.parse.unquote(parsed.netloc + parsed.path)
    if not path:
        raise _error("file", "path missing")
    rank = _integer("file", query, "rank", "rank")
    world_size = _integer("file", query, "world_size", "world size")
    _check_rank("file", rank, world_size)
    store = FileStore(path, world_size)
    store.set_timeout(timeout)
    return store, rank, world_size


register_rendezvous_handler("tcp", _tcp_handler)
register_rendezvous_handler("env", _env_handler)
register_rendezvous_handler("file", _file_handler)
