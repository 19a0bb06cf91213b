"""``python -m ember.conformance --device <type> [kit options]``."""

import argparse
import sys

from ember import conformance


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m ember.conformance",
        description="Certify the plugin providing a device type with the Ember conformance kit. "
                    "Other options (--filter, --list, --json FILE, --perf) go to ember-conformance.")
    parser.add_argument("--device", required=True, help="device type, e.g. cpu or xpu")
    args, kit_options = parser.parse_known_args(argv)
    try:
        return conformance.run(args.device, kit_options)
    except (ValueError, FileNotFoundError) as error:
        print(f"ember.conformance: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
