"""ember.nn: modules, parameters, functional ops, initializers, utilities."""

from . import attention, functional, init, parallel, utils
from .modules import *  # noqa: F401,F403
from .parallel import DataParallel
from .parameter import Buffer, Parameter
