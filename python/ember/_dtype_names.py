"""A dtype's name as Ember's error messages write it."""


def dtype_name(dtype):
    """'float32' for ember.float32."""
    return str(dtype).removeprefix("ember.")
