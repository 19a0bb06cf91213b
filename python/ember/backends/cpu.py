"""torch.backends.cpu: get_cpu_capability() names the vector instruction
set this CPU offers to the CPU plugin's kernels, in PyTorch's words
("AVX512", "AVX2" or "DEFAULT"), read from the processor's flags. A plugin
built with a lower EMBER_CPU_MAX_ISA runs below what this names."""

import functools

__all__ = ["get_cpu_capability"]


@functools.lru_cache(maxsize=1)
def _cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def get_cpu_capability():
    flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"
