"""Device work of an op, as the plugin of its device timed it (Note [Device activities])."""


class Kernel:
    """Device work of an op as its plugin timed it (torch.autograd.profiler_util.Kernel): the native
    kernel's name, the device, and when it ran, in microseconds."""

    def __init__(self, name, device, start_us, end_us, correlation_id):
        self.name = name
        self.device = device
        self.start_us = start_us
        self.end_us = end_us
        self.correlation_id = correlation_id

    @property
    def duration(self):
        return self.end_us - self.start_us

    @property
    def device_type(self):
        return self.device.split(":")[0]

    def __repr__(self):
        return f"<Kernel name={self.name} device={self.device} duration={self.duration:.3f}us>"


def device_kernels(kernels):
    # The CPU plugin times its kernels too, but as in PyTorch a CPU op has CPU
    # time only: the device columns count the work of other devices.
    return [kernel for kernel in kernels if kernel.device_type != "cpu"]
