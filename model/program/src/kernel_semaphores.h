#pragma once

#include "neuron/model/program/kernel.h"
#include "neuron/model/spec/device_spec.h"

namespace neuron::model {

// Every semaphore `k` names exists on a core of `spec`, and every wait can
// be met by the increments the program's signals add in total (they only
// grow), on every trip of its loops; else invalid_argument_error naming
// the instruction.
void check_semaphores(const kernel& k, const device_spec& spec);

} // namespace neuron::model
