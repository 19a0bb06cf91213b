// Forwarding header: the kernel helpers are part of ember_plugin.hpp.
#pragma once

#include <ember/ember_plugin.hpp>
