#pragma once

// The runtime release whose headers the shim follows (nrt-api-surface.md
// §0: SDK 2.28's runtime 2.30.50.0, the last with the 2.x async API): what
// nrt_get_version answers and what the tools show as RUNTIME VERSION.

namespace neuron::protocol {

struct runtime_version {
    unsigned major, minor, patch, maintenance;
};

inline constexpr runtime_version shim_runtime_version{2, 30, 50, 0};
inline constexpr const char* shim_runtime_version_text = "2.30.50.0";

} // namespace neuron::protocol
