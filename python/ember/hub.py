"""torch.hub's downloads: load_state_dict_from_url and download_url_to_file
fetch a checkpoint once into the hub folder and load it with ember.load
(which reads torch.save's archives for their data and tensors only). The
hub folder is get_dir(): set_dir's choice, else $EMBER_CACHE_DIR/hub
(default ~/.cache/ember/hub). hub.load, list and help are refused: they run
a repository's hubconf.py, code from the network."""

import hashlib
import os
import re
import sys
import urllib.parse
import urllib.request

from .serialization import _replace_whole, load as _load

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url", "load", "list", "help"]

# A file name's hash prefix, as torch.hub names checkpoints: resnet18-f37072fd.pth.
_HASH_IN_NAME = re.compile(r"-([a-f0-9]*)\.")
_CHUNK_BYTES = 1 << 20

_chosen_dir = None


def get_dir():
    if _chosen_dir is not None:
        return _chosen_dir
    base = os.environ.get("EMBER_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "ember")
    return os.path.join(base, "hub")


def set_dir(d):
    global _chosen_dir
    _chosen_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads url to dst through a temporary file beside it, as ember.save
    writes a file, checking that the SHA-256 of the bytes starts with
    hash_prefix when given; dst appears only complete and checked."""
    request = urllib.request.Request(url, headers={"User-Agent": "ember"})
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)

    def write(out):
        digest = hashlib.sha256()
        with urllib.request.urlopen(request) as response:
            total = int(response.headers.get("Content-Length") or 0)
            shown = progress and total and sys.stderr.isatty()
            received = 0
            while chunk := response.read(_CHUNK_BYTES):
                out.write(chunk)
                digest.update(chunk)
                received += len(chunk)
                if shown:
                    sys.stderr.write(f"\rDownloading {url}: {100 * received // total}%")
            if shown:
                sys.stderr.write("\n")
        if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}") for '
                               f"{url}")

    _replace_whole(dst, write)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False, file_name=None,
                             weights_only=False):
    """The checkpoint at url, downloaded once into model_dir (get_dir()/checkpoints by default) and loaded
    with ember.load; with check_hash, the file name's hash prefix must match its SHA-256."""
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    if not name:
        raise ValueError(f"load_state_dict_from_url: {url} names no file; pass file_name")
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        match = _HASH_IN_NAME.search(name) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    return _load(cached, map_location=map_location, weights_only=weights_only)


def _runs_code(name):
    def refused(*args, **kwargs):
        raise NotImplementedError(f"ember.hub.{name} runs a repository's hubconf.py, code fetched from the network, "
                                  "which Ember does not do; load published weights with "
                                  "ember.hub.load_state_dict_from_url or ember.load")

    refused.__name__ = name
    return refused


load, list, help = _runs_code("load"), _runs_code("list"), _runs_code("help")  # noqa: A001
