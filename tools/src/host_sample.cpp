#include "neuron/tools/host_sample.h"

#include <algorithm>

namespace neuron::tools {
namespace {

// An instance's devices all have as many cores; a tree may show only some
// of them (a container's), and the numbers still count the others.
std::uint32_t cores_per_device(const host_sample& h, std::uint32_t device) {
    for (const auto& d : h.devices) {
        if (d.index == device) return d.physical_cores;
    }
    return h.devices.empty() ? 0 : h.devices.front().physical_cores;
}

} // namespace

std::uint32_t global_physical_core(const host_sample& h, physical_core_id core) {
    return core.first * cores_per_device(h, core.first) + core.second;
}

std::uint32_t global_logical_core(const host_sample& h, physical_core_id core, std::uint32_t lnc) {
    return global_physical_core(h, core) / std::max<std::uint32_t>(lnc, 1);
}

} // namespace neuron::tools
