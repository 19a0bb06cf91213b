#pragma once

#include "dispatch/op.h"
#include "ember/device.h"
#include "ember/dispatch_key.h"

namespace ember::dispatch {

// Note [Dispatch steps]
// The dispatcher runs one step per call: the step of the highest key in the
// call's key set (Note [Dispatch keys]). Each functionality layer owns its
// step and registers it here: autograd the Autograd step, graph capture the
// Trace step, the Python bindings the Python step. A step does its work and
// calls dispatch::call again with its own key excluded on the thread
// (ExcludeDispatchKeysGuard), so the next step below runs; a key whose layer
// registered no step is passed over. Below every functionality key the
// backend stage runs: a view op is the core's own aliasing (its meta
// function gives sizes, strides and offset over the input's storage), every
// other op the backend step, which the plugin layer registers. The table
// lets this layer run steps it cannot name, so dispatch/ includes nothing
// from the layers above it (docs/dispatch.md).
using StepFn = void (*)(const Op& op, OpCall& call);
using BackendStepFn = void (*)(const Op& op, OpCall& call, Device device);

// Registers (or, with nullptr, removes) the step of a functionality key.
// Safe while other threads dispatch: a call sees the old or the new step.
void set_step(DispatchKey key, StepFn step);
StepFn step(DispatchKey key);

void set_backend_step(BackendStepFn step);
BackendStepFn backend_step();

// The runtime's own steps (Autograd, the plugin backend), installed by the
// layer above both (ops/runtime_steps.cpp) when the op registry is built,
// which every call needs first.
void install_runtime_steps();

}  // namespace ember::dispatch
