#pragma once

#include "neuron/tools/host_sample.h"

#include <optional>
#include <string>

namespace neuron::tools {

// What only the emulator's runtime knows, from its status document.
struct emulator_reading {
    std::uint64_t now_ns = 0;
    bool stepped = false;
    std::string instance_type;
    std::string instance_id;
    std::vector<runtime_sample> runtimes; // command and cpu not filled (they come from /proc)
    // Per device, the corrected ECC counts no sysfs file shows.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> corrected_ecc; // (mem, sram)
};

// Asks the emulator at `control_path`. Throws std::runtime_error saying why
// it could not (no socket, no answer, a document it cannot read).
emulator_reading read_emulator(const std::string& control_path);

// The emulator's simulated time, cheaply; throws as read_emulator does.
std::uint64_t read_emulator_clock(const std::string& control_path);

// The runtimes of a status document (protocol/README.md, "status").
emulator_reading parse_status(const std::string& json);

} // namespace neuron::tools
