#include "neuron/conformance/capability.h"

#include <array>

namespace neuron::conformance {
namespace {

struct capability_info {
    capability value;
    std::string_view name;
    std::string_view meaning;
};

constexpr std::array capabilities{
    capability_info{capability::root, "root", "act as root"},
    capability_info{capability::fresh_instance, "fresh_instance", "show devices as freshly loaded"},
    capability_info{capability::model_control, "model_control", "start device resets from outside"},
    capability_info{capability::inject_ecc, "inject_ecc", "inject ECC errors"},
    capability_info{capability::inject_fault, "inject_fault", "arm hardware faults"},
    capability_info{capability::fail_resets, "fail_resets", "make resets fail"},
    capability_info{capability::time_control, "time_control", "control time"},
    capability_info{capability::runtime, "runtime", "run the emulator's libnrt with emulated models"},
    capability_info{capability::debug_stream, "debug_stream", "emit device prints or report debug streams"},
    capability_info{capability::host_paths, "host_paths",
                    "show the driver's files at their host paths (a served tree has only the device directory)"},
};

constexpr std::array<capability, capabilities.size()> values() {
    std::array<capability, capabilities.size()> out{};
    for (std::size_t i = 0; i < capabilities.size(); ++i) out[i] = capabilities[i].value;
    return out;
}
constexpr auto capability_values = values();

const capability_info& info(capability c) {
    for (const auto& i : capabilities) {
        if (i.value == c) return i;
    }
    return capabilities.front();
}

} // namespace

std::span<const capability> all_capabilities() { return capability_values; }
std::string_view capability_name(capability c) { return info(c).name; }
std::string_view capability_meaning(capability c) { return info(c).meaning; }

std::optional<capability> find_capability(std::string_view name) {
    for (const auto& i : capabilities) {
        if (i.name == name) return i.value;
    }
    return std::nullopt;
}

std::string capability_names() {
    std::string out;
    for (const auto& i : capabilities) {
        if (!out.empty()) out += ", ";
        out += i.name;
    }
    return out;
}

} // namespace neuron::conformance
