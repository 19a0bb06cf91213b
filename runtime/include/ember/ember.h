#pragma once

// Everything a C++ user of Ember needs.
#include "ember/autocast.h"
#include "ember/autograd.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/functional.h"
#include "ember/ops.h"
#include "ember/optimizer_updates.h"
#include "ember/plugins.h"
#include "ember/random_state.h"
#include "ember/scalar.h"
#include "ember/tensor.h"
#include "ember/threads.h"
