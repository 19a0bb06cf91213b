"""SyncBatchNorm across two gloo ranks against one BatchNorm over the whole
batch: outputs, input gradients, running statistics, and affine gradients
that sum to the whole batch's; alone, it is a BatchNorm."""

import json

import numpy
import pytest

import ember
import ember.distributed as dist
import ember.multiprocessing as mp

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="the gloo plugin is not built")

_BATCH = numpy.random.default_rng(5).normal(1.5, 2.0, (6, 3, 4, 2)).astype(numpy.float32)
_WEIGHTS = numpy.random.default_rng(6).normal(0.0, 1.0, (6, 3, 4, 2)).astype(numpy.float32)


def _norm_and_step(norm, x, weights):
    norm.weight.data.copy_(ember.tensor([0.5, 2.0, -1.0]))
    norm.bias.data.copy_(ember.tensor([0.1, 0.0, -0.3]))
    out = norm(x)
    (out * weights).sum().backward()
    return out


def _rank(rank, folder):
    dist.init_process_group("gloo", init_method=f"file://{folder}/store", rank=rank, world_size=2)
    rows = slice(3 * rank, 3 * rank + 3)
    norm = ember.nn.SyncBatchNorm(3)
    x = ember.tensor(_BATCH[rows]).requires_grad_()
    out = _norm_and_step(norm, x, ember.tensor(_WEIGHTS[rows]))
    report = {"out": out.tolist(), "grad": x.grad.tolist(), "weight_grad": norm.weight.grad.tolist(),
              "bias_grad": norm.bias.grad.tolist(), "running_mean": norm.running_mean.tolist(),
              "running_var": norm.running_var.tolist()}
    with open(f"{folder}/rank{rank}.json", "w") as file:
        json.dump(report, file)
    dist.destroy_process_group()


def test_two_ranks_normalize_as_one_batch(tmp_path):
    mp.start_processes(_rank, args=(str(tmp_path),), nprocs=2, start_method="fork")
    reports = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    whole = ember.nn.BatchNorm2d(3)
    x = ember.tensor(_BATCH).requires_grad_()
    out = _norm_and_step(whole, x, ember.tensor(_WEIGHTS))
    close = dict(rtol=1e-4, atol=1e-5)
    numpy.testing.assert_allclose(reports[0]["out"] + reports[1]["out"], out.tolist(), **close)
    numpy.testing.assert_allclose(reports[0]["grad"] + reports[1]["grad"], x.grad.tolist(), **close)
    for name in ("weight_grad", "bias_grad"):
        summed = numpy.add(reports[0][name], reports[1][name])
        numpy.testing.assert_allclose(summed, getattr(whole, name.split("_")[0]).grad.tolist(), **close)
    for report in reports:
        numpy.testing.assert_allclose(report["running_mean"], whole.running_mean.tolist(), **close)
        numpy.testing.assert_allclose(report["running_var"], whole.running_var.tolist(), **close)


def test_alone_or_evaluating_it_is_a_batch_norm():
    x = ember.tensor(_BATCH)
    sync, plain = ember.nn.SyncBatchNorm(3), ember.nn.BatchNorm2d(3)
    assert sync(x).tolist() == plain(x).tolist()
    sync.eval(), plain.eval()
    assert sync(x).tolist() == plain(x).tolist()
    with pytest.raises(ValueError, match="expected 2 or 3 or 4 or 5D input"):
        sync(ember.ones(3))


def test_convert_sync_batchnorm_keeps_parameters_and_statistics():
    model = ember.nn.Sequential(ember.nn.Conv2d(3, 3, 1), ember.nn.BatchNorm2d(3))
    model[1].running_mean.fill_(0.25)
    converted = ember.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(converted[1], ember.nn.SyncBatchNorm)
    assert converted[1].weight is model[1].weight and converted[1].running_mean.tolist() == [0.25] * 3
    assert list(converted.state_dict()) == list(model.state_dict())
