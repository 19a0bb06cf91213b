"""ember.hub: a checkpoint published at a URL (here a local HTTP server)
is downloaded once into the hub folder, checked against the hash in its
name, and loaded; failures leave nothing behind; hub.load is refused."""

import hashlib
import http.server
import threading

import pytest

import ember

from helpers import assert_close


@pytest.fixture
def server(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(served), **kwargs)

        def log_message(self, *args):
            requests.append(self.path)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield served, f"http://127.0.0.1:{httpd.server_address[1]}", requests
    httpd.shutdown()
    httpd.server_close()


def test_a_published_checkpoint_downloads_once_and_loads(tmp_path, server, torch):
    served, base, requests = server
    state = {"weight": torch.arange(6.0).reshape(2, 3), "bias": torch.ones(2)}
    plain = served / "plain.pt"
    torch.save(state, plain)
    digest = hashlib.sha256(plain.read_bytes()).hexdigest()
    named = served / f"model-{digest[:8]}.pth"
    named.write_bytes(plain.read_bytes())
    previous = ember.hub.get_dir()
    ember.hub.set_dir(tmp_path / "hub")
    try:
        loaded = ember.hub.load_state_dict_from_url(f"{base}/{named.name}", check_hash=True, progress=False)
        again = ember.hub.load_state_dict_from_url(f"{base}/{named.name}", check_hash=True, progress=False,
                                                   map_location=lambda t, location: t.double())
        assert ember.hub.get_dir() == str(tmp_path / "hub")
    finally:
        ember.hub.set_dir(previous)
    assert sum(1 for r in requests if named.name in r) == 1
    assert (tmp_path / "hub" / "checkpoints" / named.name).read_bytes() == named.read_bytes()
    assert_close(loaded["weight"], state["weight"])
    assert again["bias"].dtype == ember.float64
    layer = ember.nn.Linear(3, 2)
    layer.load_state_dict(loaded)


def test_a_wrong_hash_or_a_missing_file_leaves_nothing(tmp_path, server):
    served, base, _ = server
    (served / "weights-deadbeef.pt").write_bytes(b"not the bytes that hash to deadbeef")
    target = tmp_path / "models"
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "deadbeef"'):
        ember.hub.load_state_dict_from_url(f"{base}/weights-deadbeef.pt", model_dir=str(target), check_hash=True,
                                           progress=False)
    with pytest.raises(Exception, match="404"):
        ember.hub.download_url_to_file(f"{base}/absent.pt", str(target / "absent.pt"), progress=False)
    assert list(target.iterdir()) == []


def test_hub_load_is_refused():
    with pytest.raises(NotImplementedError, match="runs a repository's hubconf.py"):
        ember.hub.load("pytorch/vision", "resnet18")
