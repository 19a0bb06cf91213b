"""ember.utils.tensorboard.SummaryWriter writes the event files PyTorch's
does: the same calls, read back with TensorBoard's own event reader, give
the same scalars, histograms, images, text and hyperparameter runs."""

import math
import os

import numpy
import pytest

import ember

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

SIZE_GUIDANCE = {"scalars": 0, "histograms": 0, "images": 0, "tensors": 0}


def _write(lib, log_dir):
    from importlib import import_module

    writer_module = import_module(f"{lib.__name__}.utils.tensorboard")
    values = numpy.random.default_rng(0).standard_normal(500).astype(numpy.float32)
    image = numpy.linspace(0, 1, 3 * 4 * 5, dtype=numpy.float32).reshape(3, 4, 5)
    with writer_module.SummaryWriter(log_dir=str(log_dir), purge_step=0) as writer:
        for step in range(3):
            writer.add_scalar("loss", lib.tensor(1.5 / (step + 1)), step)
            writer.add_scalar("lr", 0.1 * step, step, double_precision=step == 2)
            writer.add_scalar("precise", 1 / 3 + step, step, new_style=True, double_precision=step == 1)
            writer.add_scalars("pair", {"a": step, "b": lib.tensor(-step)}, step)
        writer.add_histogram("weights", lib.tensor(values), 1)
        writer.add_histogram("uniform", lib.tensor(values), 2, bins=10, max_bins=4)
        writer.add_image("chw", lib.tensor(image), 0)
        writer.add_image("hw", lib.tensor(image[0]), 0, dataformats="HW")
        writer.add_images("nchw", lib.tensor(numpy.stack([image, 1 - image])), 0)
        writer.add_text("note", "an **epoch** done", 4)
        writer.add_hparams({"lr": 0.1, "layers": 3, "optimizer": "adam", "flag": True}, {"hparam/acc": 0.75},
                           run_name="trial")


def _read(folder):
    events = EventAccumulator(str(folder), size_guidance=SIZE_GUIDANCE)
    events.Reload()
    tags = events.Tags()
    read = {}
    for tag in tags["scalars"]:
        read[("scalar", tag)] = [(e.step, round(e.value, 6)) for e in events.Scalars(tag)]
    for tag in tags["histograms"]:
        read[("histogram", tag)] = [(e.step, e.histogram_value) for e in events.Histograms(tag)]
    for tag in tags["images"]:
        read[("image", tag)] = [(e.step, e.width, e.height, e.encoded_image_string) for e in events.Images(tag)]
    for tag in tags["tensors"]:
        read[("tensor", tag)] = [(e.step, e.tensor_proto.SerializeToString()) for e in events.Tensors(tag)]
    return read, events.summary_metadata if hasattr(events, "summary_metadata") else None


def _runs(root):
    return sorted(os.path.relpath(directory, root) for directory, _, files in os.walk(root)
                  if any(f.startswith("events.out.tfevents") for f in files))


def test_the_same_calls_write_the_same_events(tmp_path, torch):
    ours, theirs = tmp_path / "ember", tmp_path / "torch"
    _write(ember, ours)
    _write(torch, theirs)
    assert _runs(ours) == _runs(theirs) == [".", "pair_a", "pair_b", "trial"]
    for run in _runs(theirs):
        ours_events, _ = _read(ours / run)
        theirs_events, _ = _read(theirs / run)
        assert ours_events.keys() == theirs_events.keys(), run
        for key in theirs_events:
            if key[0] == "histogram":
                for (step, mine), (their_step, proto) in zip(ours_events[key], theirs_events[key]):
                    assert step == their_step and list(mine.bucket) == list(proto.bucket)
                    numpy.testing.assert_allclose(mine.bucket_limit, proto.bucket_limit, rtol=1e-12)
                    assert math.isclose(mine.sum_squares, proto.sum_squares, rel_tol=1e-9)
            else:
                assert ours_events[key] == theirs_events[key], key


def test_default_folder_bad_arguments_and_graphs(tmp_path, monkeypatch):
    from ember.utils.tensorboard import SummaryWriter

    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_trial") as writer:
        assert writer.get_logdir().startswith("runs") and writer.get_logdir().endswith("_trial")
        with pytest.raises(ValueError, match="a scalar summary needs one value, got an array of shape \\[2\\]"):
            writer.add_scalar("x", ember.ones(2))
        with pytest.raises(ValueError, match="does not match dataformats 'CHW'"):
            writer.add_image("x", ember.ones(4, 4))
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary"):
            writer.add_hparams([], {})
        with pytest.warns(UserWarning, match="Ember writes no model graph"):
            writer.add_graph(ember.nn.Linear(2, 2), ember.ones(1, 2))
