"""The Summary protocol buffers SummaryWriter writes: scalars, histograms,
images, text and hyperparameters, in the layout TensorBoard's plugins read
(and PyTorch's writer produces)."""

import io

import numpy
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ... import _C


def as_numpy(value):
    """A tensor, NumPy array or Python number as a NumPy array (bfloat16 and float16 widened)."""
    if isinstance(value, _C.Tensor):
        tensor = value.detach().cpu()
        if tensor.dtype in (_C.bfloat16, _C.float16):
            tensor = tensor.float()
        return tensor.numpy()
    return numpy.asarray(value)


def as_float(value):
    array = as_numpy(value)
    if array.size != 1:
        raise ValueError(f"a scalar summary needs one value, got an array of shape {list(array.shape)}")
    return float(array.reshape(-1)[0])


def scalar(tag, value, new_style=False, double_precision=False):
    """A simple_value summary, or with new_style a tensor for the scalars plugin (float64 with
    double_precision, which only the new style keeps)."""
    value = as_float(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=value)])
    tensor = TensorProto(dtype="DT_DOUBLE", double_val=[value]) if double_precision else \
        TensorProto(dtype="DT_FLOAT", float_val=[value])
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=metadata)])


def tensorflow_bins():
    """TensorFlow's default histogram edges: ±1e-12 growing by 10% to 1e20, and 0."""
    positive = []
    edge = 1e-12
    while edge < 1e20:
        positive.append(edge)
        edge *= 1.1
    return [-e for e in reversed(positive)] + [0] + positive


def histogram(tag, values, bins, max_bins=None):
    values = as_numpy(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = numpy.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        counts = numpy.pad(counts, [0, (-len(counts)) % group]).reshape(-1, group).sum(axis=-1)
        limits = numpy.append(limits[:-1:group], limits[-1])
    # TensorBoard reads each bucket's right edge; an empty bucket before the
    # first full one carries the left edge.
    filled = numpy.flatnonzero(counts)
    first, last = (int(filled[0]), int(filled[-1])) if filled.size else (0, len(counts) - 1)
    counts = counts[first - 1:last + 1] if first > 0 else numpy.concatenate([[0], counts[:last + 1]])
    limits = limits[first:last + 2]
    proto = HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                           sum_squares=values.dot(values), bucket_limit=limits.tolist(), bucket=counts.tolist())
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def _grid(images, columns=8):
    """NCHW images tiled into one CHW image, `columns` per row."""
    count, _, height, width = images.shape
    columns = min(count, columns)
    rows = -(-count // columns)
    canvas = numpy.zeros((3, height * rows, width * columns), dtype=images.dtype)
    for index in range(count):
        row, column = divmod(index, columns)
        canvas[:, row * height:(row + 1) * height, column * width:(column + 1) * width] = images[index]
    return canvas


def as_hwc(array, dataformats):
    """An image array in any of PyTorch's layouts (NCHW, CHW, HWC, HW, ...) as 3-channel HWC."""
    layout = dataformats.upper()
    if len(set(layout)) != len(layout) or array.ndim != len(layout):
        raise ValueError(f"an image of shape {list(array.shape)} does not match dataformats {dataformats!r}")
    if len(layout) == 4:
        images = array.transpose([layout.index(c) for c in "NCHW"])
        if images.shape[1] == 1:
            images = numpy.concatenate([images] * 3, 1)
        if images.shape[1] != 3:
            raise ValueError(f"images need 1 or 3 channels, got {images.shape[1]}")
        return _grid(images).transpose(1, 2, 0)
    if len(layout) == 3:
        image = array.transpose([layout.index(c) for c in "HWC"])
        return numpy.concatenate([image] * 3, 2) if image.shape[2] == 1 else image
    image = array.transpose([layout.index(c) for c in "HW"])
    return numpy.stack([image] * 3, 2)


def image(tag, value, dataformats="CHW", rescale=1):
    from PIL import Image

    array = as_hwc(as_numpy(value), dataformats)
    # Floating images are in [0, 1], as PyTorch's writer takes them.
    scale = 1 if array.dtype == numpy.uint8 else 255
    pixels = (array.astype(numpy.float32) * scale).clip(0, 255).astype(numpy.uint8)
    height, width, channels = pixels.shape
    picture = Image.fromarray(pixels)
    if rescale != 1:
        picture = picture.resize((int(width * rescale), int(height * rescale)), Image.Resampling.LANCZOS)
    encoded = io.BytesIO()
    picture.save(encoded, format="PNG")
    proto = Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=encoded.getvalue())
    return Summary(value=[Summary.Value(tag=tag, image=proto)])


def text(tag, content):
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    tensor = TensorProto(dtype="DT_STRING", string_val=[content.encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=tensor)])


def _hparams_summary(tag, **content):
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content)
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME,
                                                                      content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """(experiment, session start, session end) summaries for TensorBoard's HPARAMS tab."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import metadata
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    discrete = hparam_domain_discrete or {}
    if not isinstance(discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for name, values in discrete.items():
        if name not in hparam_dict or not isinstance(values, list) or \
                not all(isinstance(v, type(hparam_dict[name])) for v in values):
            raise TypeError(f"parameter: hparam_domain_discrete[{name}] should be a list of same type as "
                            f"hparam_dict[{name}].")
    start = SessionStartInfo()
    infos = []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        if isinstance(value, _C.Tensor):
            value = as_float(value)
        # bool is an int here, as in PyTorch's writer: it is logged as a number.
        if isinstance(value, (int, float)):
            start.hparams[name].number_value = value
            kind, field = "DATA_TYPE_FLOAT64", "number_value"
        elif isinstance(value, str):
            start.hparams[name].string_value = value
            kind, field = "DATA_TYPE_STRING", "string_value"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: v}) for v in discrete[name]]) \
            if name in discrete else None
        infos.append(HParamInfo(name=name, type=DataType.Value(kind), domain_discrete=domain))
    experiment = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k))
                                                              for k in metric_dict])
    return (_hparams_summary(metadata.EXPERIMENT_TAG, experiment=experiment),
            _hparams_summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
            _hparams_summary(metadata.SESSION_END_INFO_TAG,
                             session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))
