"""ember.finfo and ember.iinfo against torch.finfo and torch.iinfo."""

import pytest

import ember

FLOATING = ["float16", "bfloat16", "float32", "float64"]
INTEGRAL = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATING)
def test_finfo_matches_pytorch(torch, name):
    actual, expected = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(actual, field) == getattr(expected, field), field
    assert ember.finfo().dtype == "float32"


@pytest.mark.parametrize("name", INTEGRAL)
def test_iinfo_matches_pytorch(torch, name):
    actual, expected = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    for field in ("bits", "max", "min", "dtype"):
        assert getattr(actual, field) == getattr(expected, field), field


def test_the_wrong_kind_of_dtype_is_a_type_error(torch):
    for library in (torch, ember):
        with pytest.raises(TypeError):
            library.finfo(library.int32)
        with pytest.raises(TypeError):
            library.iinfo(library.float32)
        with pytest.raises(TypeError):
            library.iinfo(library.bool)
