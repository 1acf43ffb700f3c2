#pragma once

#include <systemc>

#include <cstdint>

namespace neuron::model {

// The kernel's time in picoseconds, its resolution. Read inline: the model
// asks at every state change. Kernel thread only.
inline std::uint64_t now_ps() { return sc_core::sc_get_curr_simcontext()->time_stamp().value(); }

} // namespace neuron::model
