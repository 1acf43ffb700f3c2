#pragma once

#include <string_view>

namespace neuron::tools {

// The names the vendor's tools give a device generation (by the driver's
// info/architecture/device_name): neuron-monitor's hardware info, the
// NeuronCore version in neuron-top's title.
struct hardware_names {
    std::string_view device_type;
    std::string_view device_version;
    std::string_view core_version;         // at LNC 1
    std::string_view logical_core_version; // at LNC 2; empty: no LNC 2
};

// None for a name the tools do not know.
const hardware_names* hardware_names_of(std::string_view device_name);

// The NeuronCore version shown under `lnc`.
inline std::string_view core_version_at(const hardware_names& names, unsigned lnc) {
    return lnc > 1 && !names.logical_core_version.empty() ? names.logical_core_version : names.core_version;
}

} // namespace neuron::tools
