"""A CI-sized soak run (bench/soak.py): a few hundred training steps of the
digits CNN, with nothing growing after warm-up: the caching allocator's
allocated and reserved bytes and device allocations come back to the same
values every step, and the RSS stays flat (docs/reliability.md has the 10k
step run)."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("sklearn", reason="the digits data set comes from scikit-learn (pip install scikit-learn)")

SOAK = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "soak.py")


def test_a_few_hundred_training_steps_grow_no_memory_after_warm_up(tmp_path):
    out = tmp_path / "soak.json"
    result = subprocess.run([sys.executable, SOAK, "--steps", "400", "--sample-every", "10", "--warmup", "100",
                             "--check", "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    figures = json.loads(out.read_text())["figures"]
    assert figures["allocated_growth_bytes"] == figures["reserved_growth_bytes"] == 0
    assert figures["device_alloc_growth"] == 0
    assert figures["rss_growth_mib"] <= 4.0
    assert figures["last_loss"] < figures["first_loss"]  # it did train
