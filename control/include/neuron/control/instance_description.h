#pragma once

#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/protocol/messages.h"

namespace neuron::control {

// What nrt_get_instance_info and the core counts report for an instance
// (nrt-api.md §3.1: the family and size enums of nrt.h).
protocol::instance_description describe(const model::instance_type& instance);

} // namespace neuron::control
