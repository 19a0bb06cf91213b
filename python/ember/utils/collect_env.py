"""torch.utils.collect_env: the environment report for bug reports, which
is Ember's `python -m ember.info` (versions, plugins and their quarantine
reasons, devices, op coverage)."""

__all__ = ["get_pretty_env_info", "main"]


def get_pretty_env_info():
    from .. import info

    return "\n".join(info.collect())


def main():
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
