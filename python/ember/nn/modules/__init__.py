"""The layer classes of ember.nn, one family per file."""

from .activation import (ELU, GELU, Dropout, Hardtanh, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, SiLU, Softmax,
                         Softplus, Tanh)
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .linear import Embedding, Flatten, Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from .pooling import AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv1d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "GroupNorm",
    "Hardtanh",
    "Identity",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "MaxPool1d",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ReLU",
    "ReLU6",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Tanh",
]
