"""torch.distributed.elastic.multiprocessing.errors.record writes a
worker's uncaught exception to the launcher's error file and re-raises it;
ember-run then names the rank and the error; utils.model_zoo.load_url is
hub.load_state_dict_from_url."""

import json
import os
import subprocess
import sys

import pytest

import ember
from ember.distributed.elastic.multiprocessing.errors import record


def test_record_writes_the_error_file_and_reraises(tmp_path, monkeypatch):
    error_file = tmp_path / "error.json"
    monkeypatch.setenv("EMBER_ERROR_FILE", str(error_file))

    @record
    def main(value):
        raise ValueError(f"bad value {value}")

    with pytest.raises(ValueError, match="bad value 3"):
        main(3)
    written = json.loads(error_file.read_text())
    assert written["type"] == "ValueError" and written["message"] == "bad value 3"
    assert "raise ValueError" in written["traceback"]

    @record()
    def fine():
        return 5

    error_file.unlink()
    assert fine() == 5 and not error_file.exists()
    monkeypatch.delenv("EMBER_ERROR_FILE")
    with pytest.raises(KeyError):
        record(lambda: {}["missing"])()


def test_ember_run_names_the_rank_a_recorded_main_failed_in(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import os\nfrom ember.distributed.elastic.multiprocessing.errors import record\n"
                      "@record\ndef main():\n    if os.environ['RANK'] == '1':\n"
                      "        raise RuntimeError('rank one gave up')\nmain()\n")
    result = subprocess.run([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", "2", str(script)],
                            capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert result.returncode != 0
    assert "rank 1" in result.stderr and "rank one gave up" in result.stderr


def test_model_zoo_load_url_is_the_hub_loader():
    import ember.utils.model_zoo as model_zoo

    assert model_zoo.load_url is ember.hub.load_state_dict_from_url
