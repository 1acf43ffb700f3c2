#pragma once

// The runtime release whose headers the shim follows (nrt-api-surface.md
// §0: SDK 2.28's runtime 2.30.50.0, the last with the 2.x async API): what
// nrt_get_version answers and what the tools show as RUNTIME VERSION.

#include <string>

namespace neuron::protocol {

struct runtime_version {
    unsigned major, minor, patch, maintenance;
};

inline constexpr runtime_version shim_runtime_version{2, 30, 50, 0};

// "2.30.50.0"
inline std::string version_text(const runtime_version& v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch) + "." +
           std::to_string(v.maintenance);
}

} // namespace neuron::protocol
