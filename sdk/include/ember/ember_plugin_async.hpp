// Forwarding header: the asynchronous-launch helpers are ember/sdk/async.hpp.
#pragma once

#include <ember/ember_plugin.hpp>
#include <ember/sdk/async.hpp>
