"""PyTorch's default DDP communication hooks: allreduce_hook averages a
bucket as DDP does without a hook; fp16_compress_hook and
bf16_compress_hook send it in half the bytes and write the average back in
the bucket's own dtype. The state is the process group (None: the default
one)."""

from .... import _C
from ... import distributed_c10d as c10d

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]


def _averaged(process_group, tensor):
    """A future of `tensor` all-reduced over the group and divided by its size, in place."""
    tensor.div_(c10d.get_world_size(process_group))
    return c10d.all_reduce(tensor, group=process_group, async_op=True).get_future().then(lambda done: done.value()[0])


def allreduce_hook(process_group, bucket):
    return _averaged(process_group, bucket.buffer())


def _compressing(dtype):
    def hook(process_group, bucket):
        buffer = bucket.buffer()
        compressed = buffer.to(dtype)

        def decompress(averaged):
            buffer.copy_(averaged.value())
            return buffer

        return _averaged(process_group, compressed).then(decompress)

    return hook


fp16_compress_hook = _compressing(_C.float16)
fp16_compress_hook.__name__ = "fp16_compress_hook"
bf16_compress_hook = _compressing(_C.bfloat16)
bf16_compress_hook.__name__ = "bf16_compress_hook"
