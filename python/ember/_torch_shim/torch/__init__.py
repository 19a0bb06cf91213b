"""`torch` for the processes a program run by `python -m ember.as_torch`
starts: importing it makes `torch` Ember (Note [The torch package on
PYTHONPATH] in ember/as_torch.py)."""

is_ember_torch_shim = True

import ember.as_torch  # noqa: E402

ember.as_torch.install()
