#pragma once

#include "neuron/profile/timeline.h"

namespace neuron::profile {

// The HBM bandwidth of one NeuronCore, bytes/s, that neuron-profile's summary
// divides by (mbu_estimated_percent, peak_flops_bandwidth_ratio).
double summary_core_hbm_bytes_per_s(const core_timeline& t);

} // namespace neuron::profile
