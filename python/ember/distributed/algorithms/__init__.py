"""torch.distributed.algorithms: the DDP communication hooks."""
