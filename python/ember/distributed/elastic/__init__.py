"""torch.distributed.elastic: the part training scripts import, the
`record` decorator of elastic.multiprocessing.errors."""
