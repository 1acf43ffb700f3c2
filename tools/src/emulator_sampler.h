#pragma once

#include "neuron/tools/host_sample.h"

#include <memory>
#include <optional>
#include <string>

namespace neuron::protocol {
class simple_client;
}

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

// The emulator's simulated time over one connection, for tools that read it
// often; construction and now_ns() throw as read_emulator does.
class emulator_clock {
public:
    explicit emulator_clock(const std::string& control_path);
    ~emulator_clock();
    emulator_clock(const emulator_clock&) = delete;
    emulator_clock& operator=(const emulator_clock&) = delete;

    std::uint64_t now_ns();

private:
    std::string m_path;
    std::unique_ptr<protocol::simple_client> m_client;
};

// The runtimes of a status document (protocol/README.md, "status").
emulator_reading parse_status(const std::string& json);

} // namespace neuron::tools
