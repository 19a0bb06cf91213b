"""``python -m ember.info``: versions, plugins (with quarantine reasons),
devices and kernel counts, for bug reports (like torch.utils.collect_env)."""

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
    lines = [
        f"ember: {ember.__version__} (plugin ABI {ember._C.ABI_VERSION[0]}.{ember._C.ABI_VERSION[1]})",
        f"python: {sys.version.split()[0]} ({platform.platform()})",
        f"numpy: {_version_of('numpy')}",
        f"torch: {_version_of('torch')}",
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
    return lines


def main():
    print("\n".join(collect()))


if __name__ == "__main__":
    main()
