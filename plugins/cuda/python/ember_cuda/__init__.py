"""The Ember CUDA plugin (NVIDIA GPUs through the CUDA runtime and cuBLAS) as a
pip package.

``ember`` finds it through the ``ember.plugins`` entry point, which names
:func:`plugin`; nothing needs importing by hand. The plugin needs an NVIDIA
driver; the CUDA runtime is linked in, and cuBLAS and NVRTC come from
NVIDIA's wheels (``nvidia-cublas``, ``nvidia-cuda-nvrtc``), which this wheel
depends on and which install into ``site-packages/nvidia/cu13/lib``, where
the plugin's library looks (its RUNPATH). Without a GPU it loads and reports
no device. A second entry point, :func:`nccl_plugin`, gives the NCCL
collective engine of ``ember.distributed`` over NVIDIA's ``nvidia-nccl-cu13``.
"""

import os

from . import _build_info

__version__ = _build_info.version

# The NVIDIA wheels whose libraries the plugin's library links, and the file
# each one puts into nvidia/cu13/lib.
VENDOR_LIBRARIES = {"nvidia-cublas": "libcublas.so.13", "nvidia-cuda-nvrtc": "libnvrtc.so.13"}


def vendor_library_folder():
    """Where NVIDIA's wheels put their libraries in this environment."""
    site_packages = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(site_packages, "nvidia", "cu13", "lib")


def missing_vendor_libraries():
    """The NVIDIA wheels whose library is not in this environment."""
    folder = vendor_library_folder()
    return {wheel: library for wheel, library in VENDOR_LIBRARIES.items()
            if not os.path.isfile(os.path.join(folder, library))}


def _missing_message(missing, folder):
    named = ", ".join(f"{library} (from the wheel {wheel})" for wheel, library in missing.items())
    return f"ember-cuda needs {named}, not found in {folder}; pip install {' '.join(missing)}"


def _spec(library):
    here = os.path.dirname(os.path.abspath(__file__))
    return {"path": os.path.join(here, "ember", "plugins", library),
            "abi_major": _build_info.abi_major, "abi_minor": _build_info.abi_minor,
            "distribution": "ember-cuda", "version": __version__}


def plugin():
    """Where the plugin library is and the plugin ABI it speaks, which the core
    checks before it opens the library; a missing NVIDIA wheel is named
    instead of leaving the loader's bare 'cannot open shared object file'."""
    missing = missing_vendor_libraries()
    if missing:
        raise RuntimeError(_missing_message(missing, vendor_library_folder()))
    return _spec("libember_plugin_cuda.so")


# NCCL's wheel and the file it puts into nvidia/nccl/lib.
NCCL_LIBRARY = {"nvidia-nccl-cu13": "libnccl.so.2"}


def nccl_library_folder():
    site_packages = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(site_packages, "nvidia", "nccl", "lib")


def nccl_plugin():
    """The NCCL collective engine (``init_process_group("nccl")``), as
    :func:`plugin` gives the device plugin."""
    folder = nccl_library_folder()
    missing = {wheel: library for wheel, library in NCCL_LIBRARY.items()
               if not os.path.isfile(os.path.join(folder, library))}
    if missing:
        raise RuntimeError(_missing_message(missing, folder))
    return _spec("libember_plugin_nccl.so")
