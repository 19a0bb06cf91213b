#!/usr/bin/env python3
"""Checks the runtime's layering (docs/dispatch.md): each folder of
runtime/src includes only the layers below it (export/, programs exported
ahead of time, is the top one, over the compiler's compile/), and no runtime file includes the Python bindings.

    scripts/check_layering.py [runtime/src]   fails naming file:line
    scripts/check_layering.py --self-test     proves it catches a violation
"""
import pathlib
import re
import sys
import tempfile

# Lowest first; a layer may include itself and every layer before it.
LAYERS = ["core", "profiler", "dispatch", "plugin", "autograd", "ops", "distributed", "compile", "export"]
# Never included from runtime/src, whatever the layer.
FORBIDDEN_EVERYWHERE = {"python"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def violations(src_root):
    src_root = pathlib.Path(src_root)
    found = []
    for path in sorted(src_root.rglob("*")):
        if path.suffix not in {".h", ".hpp", ".cpp", ".cc"} or not path.is_file():
            continue
        layer = path.relative_to(src_root).parts[0]
        allowed = set(LAYERS[: LAYERS.index(layer) + 1]) if layer in LAYERS else set(LAYERS)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            if target in FORBIDDEN_EVERYWHERE or (target in LAYERS and target not in allowed):
                found.append(f"{path}:{number}: {layer}/ includes {target}/ ({line.strip()})")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "core").mkdir()
        (root / "dispatch").mkdir()
        (root / "ops").mkdir()
        (root / "core" / "good.cpp").write_text('#include "core/shape.h"\n')
        (root / "dispatch" / "bad.cpp").write_text('#include "core/shape.h"\n#include "autograd/node.h"\n')
        (root / "ops" / "bad.cpp").write_text('#include "python/bindings.h"\n')
        found = violations(root)
        assert len(found) == 2, found
        assert "dispatch/ includes autograd/" in found[0], found
        assert "ops/ includes python/" in found[1], found
    print("check_layering self-test: ok")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    root = argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "runtime" / "src"
    found = violations(root)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} include(s) against the layering in docs/dispatch.md", file=sys.stderr)
        return 1
    print(f"layering of {root}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
