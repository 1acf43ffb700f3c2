#pragma once

// What the neuron-ls views share: each device's processes and the values as
// the tool writes them.

#include "neuron/tools/host_sample.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::tools::detail {

struct ls_process {
    std::uint32_t pid = 0;
    std::string command;         // empty: unknown
    std::string runtime_version; // as shown ("2.30.50"); empty: not a runtime
};

// The runtimes holding a core of `d`, by pid; with `all_processes`, then
// every other process with the device open, by pid.
std::vector<ls_process> processes_on(const host_sample& h, const device_sample& d, bool all_processes);

// The runtime's version as neuron-ls shows it: major.minor.patch.
std::string runtime_version_text(std::string_view version);

// "0000:cc:00.0" -> "cc:00.0"; anything else as it is.
std::string short_bdf(std::string_view bdf);

// The devices are Trainium2: the tool then shows the LNC.
bool shows_lnc(const host_sample& h);
std::uint32_t lnc_of(const host_sample& h);

// Global logical NeuronCore ids of the device: index*n .. index*n+n-1.
std::vector<std::uint32_t> core_ids(const host_sample& h, const device_sample& d);

} // namespace neuron::tools::detail
