"""``python -m ember.info``: versions, plugins (with quarantine reasons),
devices and each device type's op coverage, for bug reports (like
torch.utils.collect_env).

Coverage reads the dispatcher's kernel tables: per device type, how many of
the catalogue's primitives have a kernel (for any dtype, and per dtype), how
many (op, dtype) kernels there are, which composites the device overrides
with a fused kernel, and which primitives have no kernel at all (calling
them, or a composite built on them, on that device raises
NotImplementedError).
"""

import platform
import sys

import ember


def _version_of(module_name):
    try:
        module = __import__(module_name)
    except ImportError:
        return "not installed"
    return getattr(module, "__version__", "unknown")


def collect():
    """The report as a list of lines."""
    # Before torch is imported for its version: its libgomp, loaded first,
    # would decide the OpenMP wait policy of this process.
    threads = f"threads: {ember.get_num_threads()}, OpenMP wait: {ember._C._openmp_wait_policy()}"
    lines = [
        f"ember: {ember.__version__} (plugin ABI {ember._C.ABI_VERSION[0]}.{ember._C.ABI_VERSION[1]})",
        f"python: {sys.version.split()[0]} ({platform.platform()})",
        f"numpy: {_version_of('numpy')}",
        f"torch: {_version_of('torch')}",
        threads,
        "",
        "Plugins:",
    ]
    for plugin in ember.plugins():
        if plugin.loaded:
            lines.append(f"  {plugin.name} {plugin.version}  ABI {plugin.abi_major}.{plugin.abi_minor} "
                         f"(negotiated {plugin.abi_major}.{plugin.negotiated_minor})  loaded, "
                         f"{plugin.num_kernels} kernels, device type '{plugin.device_type}'")
        else:
            lines.append(f"  {plugin.name}  QUARANTINED: {plugin.error}")
        lines.append(f"    {plugin.path}")
    lines += ["", "Devices:"]
    for info in ember.devices():
        memory = f", {info.total_memory / 2**30:.1f} GiB" if info.total_memory else ""
        units = f", {info.compute_units} compute units" if info.compute_units else ""
        lines.append(f"  {info.device}  {info.name}  (plugin {info.plugin or 'built in'}{units}{memory})")
    return lines + [""] + coverage_report()


def coverage(device_type):
    """What one device type's kernel table covers, as a dict: ``kernels``
    (op name -> the dtypes it has kernels for), ``fused`` (composites with a
    kernel of their own) and ``missing`` (primitives without any kernel),
    both in catalogue order."""
    ember._plugins.autoload()  # plugin wheels' kernels count too
    kernels = ember._C.registered_kernels(device_type)
    ops = ember._C.catalogue_ops()
    return {
        "kernels": kernels,
        "fused": [op.name for op in ops if op.composite and op.name in kernels],
        "missing": [op.name for op in ops if not op.composite and op.name not in kernels],
    }


def coverage_report():
    """The coverage tables as lines, one row per device type with devices."""
    ops = ember._C.catalogue_ops()
    primitives = [op.name for op in ops if not op.composite]
    num_composites = len(ops) - len(primitives)
    device_types = list(dict.fromkeys(info.device.type for info in ember.devices() if info.device.type != "meta"))
    dtypes = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64, ember.float16,
              ember.bfloat16, ember.float32, ember.float64]
    dtype_names = [str(dtype).split(".")[-1] for dtype in dtypes]
    summary = [("device", "primitives", "(op, dtype) kernels", "fused composites")]
    per_dtype = [("device", *dtype_names)]
    details = []
    for device_type in device_types:
        report = coverage(device_type)
        kernels = report["kernels"]
        summary.append((device_type, f"{len(primitives) - len(report['missing'])}/{len(primitives)}",
                        str(sum(len(kernel_dtypes) for kernel_dtypes in kernels.values())),
                        f"{len(report['fused'])}/{num_composites}"))
        per_dtype.append((device_type, *(str(sum(dtype in kernels.get(name, ()) for name in primitives))
                                          for dtype in dtypes)))
        details.append(f"  {device_type} fused composites: {', '.join(report['fused']) or 'none'}")
        details.append(f"  {device_type} primitives without a kernel: {', '.join(report['missing']) or 'none'}")
    return ([f"Op coverage (catalogue: {len(primitives)} primitives, {num_composites} composites; "
             "meta runs shape functions only):"] + _table(summary) + ["", "Primitives with a kernel, per dtype:"]
            + _table(per_dtype) + [""] + details)


def _table(rows):
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def main():
    print("\n".join(collect()))


if __name__ == "__main__":
    main()
