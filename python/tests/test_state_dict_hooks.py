"""Module state dict hooks and the per-module _save_to_state_dict /
_load_from_state_dict against PyTorch: the calls each hook sees, what their
return values do, handle removal, strict loading after post-hooks, key and
size errors, version metadata, assign and subclass overrides."""

from collections import OrderedDict

import numpy
import pytest

import ember


def network(lib):
    """The same small network in ember or PyTorch, with equal weights."""
    net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3), lib.nn.Sequential(lib.nn.Linear(3, 1)))
    values = numpy.random.default_rng(3)
    with lib.no_grad():
        for param in net.parameters():
            param.copy_(lib.tensor(values.standard_normal(tuple(param.shape)).astype(numpy.float32)))
    return net


def both(torch):
    return (ember, network(ember)), (torch, network(torch))


def as_lists(state):
    return {key: value.tolist() for key, value in state.items()}


def test_state_dict_pre_hook_sees_each_module_before_its_entries(torch):
    calls = {}
    for lib, net in both(torch):
        seen = calls[lib.__name__] = []

        def hook(module, prefix, keep_vars, seen=seen):
            seen.append((type(module).__name__, prefix, keep_vars))

        for module in net.modules():
            module.register_state_dict_pre_hook(hook)
        net.state_dict(prefix="net.", keep_vars=True)
    assert calls["ember"] == calls["torch"]
    assert calls["ember"][0] == ("Sequential", "net.", True)


def test_state_dict_post_hook_edits_in_place_and_must_return_none(torch):
    for lib, net in both(torch):
        def add_scale(module, state, prefix, local_metadata):
            state[prefix + "scale"] = lib.ones(1)

        handle = net[0].register_state_dict_post_hook(add_scale)
        assert list(net.state_dict())[:3] == ["0.weight", "0.bias", "0.scale"]
        handle.remove()
        assert "0.scale" not in net.state_dict()
        net.register_state_dict_post_hook(lambda module, state, prefix, local_metadata: {})
        with pytest.raises(RuntimeError, match="^state_dict post-hook must return None$"):
            net.state_dict()


def test_private_state_dict_hook_replaces_only_the_root_result(torch):
    results = {}
    for lib, net in both(torch):
        def replace(module, state, prefix, local_metadata):
            return OrderedDict(only=lib.zeros(1))

        net[0]._register_state_dict_hook(replace)
        child_replaced = list(net.state_dict())
        net._register_state_dict_hook(replace)
        results[lib.__name__] = (child_replaced, list(net.state_dict()))
    assert results["ember"] == results["torch"]
    assert results["ember"][1] == ["only"]


def test_one_function_cannot_be_both_post_hook_kinds(torch):
    for lib, net in both(torch):
        def hook(module, state, prefix, local_metadata):
            return None

        net.register_state_dict_post_hook(hook)
        with pytest.raises(RuntimeError, match="previously registered via register_state_dict_post_hook"):
            net._register_state_dict_hook(hook)


def test_post_hook_local_metadata_and_state_dict_metadata_match(torch):
    metadata = {}
    for lib, net in both(torch):
        seen = []
        net[1].register_state_dict_post_hook(lambda module, state, prefix, local: seen.append((prefix, local)))
        state = net.state_dict()
        metadata[lib.__name__] = (dict(state._metadata), seen)
    assert metadata["ember"] == metadata["torch"]
    assert metadata["ember"][1] == [("1.", {"version": 2})]


def test_load_pre_hook_renames_keys_before_the_module_loads(torch):
    results = {}
    for lib, net in both(torch):
        source = {key.replace("2.0.", "2.old."): value for key, value in network(lib).state_dict().items()}
        target = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3), lib.nn.Sequential(lib.nn.Linear(3, 1)))
        calls = []

        def rename(module, state, prefix, local_metadata, strict, missing, unexpected, errors):
            calls.append((type(module).__name__, prefix, strict, sorted(state)))
            for name in ("weight", "bias"):
                state[prefix + "0." + name] = state.pop(prefix + "old." + name)

        target[2].register_load_state_dict_pre_hook(rename)
        result = target.load_state_dict(source)
        results[lib.__name__] = (calls, result.missing_keys, result.unexpected_keys, as_lists(target.state_dict()))
        assert sorted(source) != sorted(target.state_dict())  # the caller's dict is not rewritten
    assert results["ember"] == results["torch"]


def test_private_load_pre_hook_without_and_with_module(torch):
    for lib, net in both(torch):
        seen = []
        net[0]._register_load_state_dict_pre_hook(lambda state, prefix, *rest: seen.append(("plain", prefix)))
        net[0]._register_load_state_dict_pre_hook(
            lambda module, state, prefix, *rest: seen.append((type(module).__name__, prefix)), with_module=True)
        net.load_state_dict(net.state_dict())
        assert seen == [("plain", "0."), ("Linear", "0.")]


def test_load_post_hook_can_clear_keys_so_strict_loading_passes(torch):
    results = {}
    for lib, net in both(torch):
        seen = []

        def forgive(module, incompatible):
            seen.append((list(incompatible.missing_keys), list(incompatible.unexpected_keys)))
            incompatible.missing_keys.clear()
            incompatible.unexpected_keys.clear()

        handle = net.register_load_state_dict_post_hook(forgive)
        state = net.state_dict()
        state.pop("0.bias")
        state["extra"] = lib.ones(1)
        result = net.load_state_dict(state)
        handle.remove()
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0.bias". '):
            net.load_state_dict(state)
        results[lib.__name__] = (seen, tuple(result))
    assert results["ember"] == results["torch"] == ([(["0.bias"], ["extra"])], ([], []))


def test_load_post_hook_returning_a_value_is_an_assertion(torch):
    for lib, net in both(torch):
        net.register_load_state_dict_post_hook(lambda module, incompatible: incompatible)
        with pytest.raises(AssertionError, match="are not expected to return new values"):
            net.load_state_dict(net.state_dict())


def error_message(call):
    with pytest.raises(Exception) as caught:
        call()
    return type(caught.value), str(caught.value).replace("torch.", "ember.")


def test_load_errors_match_and_what_matched_still_loads(torch):
    messages = {}
    for lib, net in both(torch):
        fresh = network(lib)
        with lib.no_grad():
            fresh[0].weight.fill_(7.0)
        state = fresh.state_dict()
        state["0.bias"] = lib.zeros(4)
        state["surplus"] = lib.zeros(1)
        state["2.unknown.weight"] = lib.zeros(1)
        del state["1.running_var"]
        messages[lib.__name__] = error_message(lambda: net.load_state_dict(state))
        assert net[0].weight.tolist() == [[7.0, 7.0]] * 3
        assert error_message(lambda: net.load_state_dict([1])) == (
            TypeError, "Expected state_dict to be dict-like, got <class 'list'>.")
        assert error_message(lambda: net.load_state_dict({"0.weight": 1.0}, strict=False))[1].endswith(
            "from checkpoint but received <class 'float'>")
    assert messages["ember"] == messages["torch"]
    assert "size mismatch for 0.bias: copying a param with shape ember.Size([4])" in messages["ember"][1]


def test_assign_replaces_parameters_and_keeps_requires_grad(torch):
    for lib, net in both(torch):
        net[0].bias.requires_grad_(False)
        state = network(lib).state_dict()
        net.load_state_dict(state, assign=True)
        assert net[0].weight is not state["0.weight"] and isinstance(net[0].weight, lib.nn.Parameter)
        assert net[0].weight.data_ptr() == state["0.weight"].data_ptr()
        assert net[1].running_mean is state["1.running_mean"]
        assert (net[0].weight.requires_grad, net[0].bias.requires_grad) == (True, False)


def test_batch_norm_loads_a_version_1_state_dict_without_its_counter(torch):
    for lib, net in both(torch):
        state = net.state_dict()
        del state["1.num_batches_tracked"]
        state._metadata["1"] = {"version": 1}
        assert tuple(net.load_state_dict(state)) == ([], [])
        state._metadata["1"] = {"version": 2}
        with pytest.raises(RuntimeError, match='Missing key.*"1.num_batches_tracked"'):
            net.load_state_dict(state)


def scaled_linear(lib):
    """A Linear that saves its weight halved and doubles it back on load,
    through the overridable per-module methods."""
    class ScaledLinear(lib.nn.Linear):
        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "weight"] = destination[prefix + "weight"] / 2

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
            state_dict[prefix + "weight"] = state_dict[prefix + "weight"] * 2
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected, errors)

    return ScaledLinear(2, 2)


def test_subclasses_override_saving_and_loading(torch):
    results = {}
    for lib in (ember, torch):
        source, target = scaled_linear(lib), scaled_linear(lib)
        with lib.no_grad():
            source.weight.copy_(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
        saved = source.state_dict()
        target.load_state_dict(saved)
        results[lib.__name__] = (saved["weight"].tolist(), target.weight.tolist())
    assert results["ember"] == results["torch"] == ([[0.5, 1.0], [1.5, 2.0]], [[1.0, 2.0], [3.0, 4.0]])


def test_load_result_reprs_match(torch):
    reprs = {}
    for lib, net in both(torch):
        state = net.state_dict()
        matched = net.load_state_dict(state)
        del state["0.bias"]
        reprs[lib.__name__] = (repr(matched), repr(net.load_state_dict(state, strict=False)))
    assert reprs["ember"] == reprs["torch"]
    assert reprs["ember"][0] == "<All keys matched successfully>"


def counted(lib):
    """A module that keeps a plain Python counter in its state dict."""
    class Counted(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = lib.nn.Linear(1, 1)
            self.calls = 0

        def get_extra_state(self):
            return {"calls": self.calls}

        def set_extra_state(self, state):
            self.calls = state["calls"]

    return Counted()


def test_extra_state_is_saved_and_loaded(torch):
    results = {}
    for lib in (ember, torch):
        source, target = counted(lib), counted(lib)
        source.calls = 4
        wrapped = lib.nn.Sequential(source)
        state = wrapped.state_dict()
        lib.nn.Sequential(target).load_state_dict(state)
        del state["0._extra_state"]
        missing = error_message(lambda: lib.nn.Sequential(counted(lib)).load_state_dict(state))
        plain = lib.nn.Sequential(lib.nn.Module())
        unexpected = plain.load_state_dict({"0._extra_state": 1}, strict=False)
        results[lib.__name__] = (list(wrapped.state_dict()), target.calls, missing, tuple(unexpected))
    assert results["ember"] == results["torch"]
    assert results["ember"][0][0] == "0._extra_state" and results["ember"][1] == 4
