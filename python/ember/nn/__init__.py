"""ember.nn: modules, parameters, functional ops, initializers, utilities."""

from . import functional, init, utils
from .modules import *  # noqa: F401,F403
from .parameter import Parameter
