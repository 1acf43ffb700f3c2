#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace neuron::cli {

// The vendor's tools neuron-emu stands in for: run as `neuron-emu COMMAND`,
// or under the vendor's name (argv[0]), which `run` puts on PATH and at
// /opt/aws/neuron/bin for its command.
struct vendor_tool {
    std::string_view name;    // the vendor's executable
    std::string_view command; // neuron-emu's
    int (*run)(std::span<const std::string> args);
};

std::span<const vendor_tool> vendor_tools();

// The tool `argv0` names (its last path component), if any.
const vendor_tool* vendor_tool_named(std::string_view argv0);

// Where the vendor installs them.
inline constexpr std::string_view vendor_bin_dir = "/opt/aws/neuron/bin";

} // namespace neuron::cli
