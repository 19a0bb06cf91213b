"""ember.optim: optimizers with PyTorch's update rules, and lr_scheduler."""

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adafactor", "Adagrad", "Adadelta", "Adamax", "ASGD", "Muon", "NAdam",
           "RAdam", "RMSprop", "Rprop", "LBFGS", "lr_scheduler", "swa_utils"]
