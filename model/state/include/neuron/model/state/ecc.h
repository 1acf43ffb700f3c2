#pragma once

#include "neuron/model/spec/ecc_register.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron::model {

class published_state;

enum class ecc_kind : std::uint8_t {
    sram,           // uncorrected SRAM error
    hbm,            // uncorrected HBM error on one channel
    hbm_repairable, // uncorrected HBM error the firmware can repair (Trn2): sets "pending repair"
    sram_corrected, // corrected errors: counted in the registers, never shown in sysfs
    hbm_corrected,
};

std::string_view ecc_kind_name(ecc_kind kind);
// "sram", "hbm", "hbm-repairable", "sram-corrected", "hbm-corrected"; anything
// else throws invalid_argument_error naming the value and the valid kinds.
ecc_kind parse_ecc_kind(std::string_view name);

// One device's ECC registers as the firmware keeps them (driver-sysfs.md §6).
// Kernel thread only; the words are published for readers.
class ecc_unit {
public:
    ecc_unit(published_state& state, std::uint32_t device);

    // Adds `count` errors, 1..2^32-1 (16-bit fields saturate at 0xffff). HBM
    // errors go to `channel` (default 0). Throws unsupported_error on Inf1 and
    // for repairable errors on firmware without a repair state (v2).
    void inject(ecc_kind kind, std::int64_t count, std::optional<std::uint32_t> channel = std::nullopt);
    void set_repair_state(hbm_repair_state state);
    // The firmware has an HBM repair pending (state 1, driver-sysfs.md §6):
    // it reports uncorrected HBM errors as repairable. Never on v2 firmware.
    bool repair_pending() const;
    // Raw register write, e.g. register_read_failure to emulate a failing MMIO read.
    void write_register(ecc_register reg, std::uint32_t value);

private:
    void check_supported(std::string_view what) const;

    published_state& m_state;
    std::uint32_t m_device;
};

// The three stats/hardware/ values, computed from the registers at read time
// the way the driver's dhal does for this device's arch.
struct ecc_readout {
    std::uint32_t sram_ecc_uncorrected = 0;
    std::uint32_t mem_ecc_uncorrected = 0;
    std::uint32_t mem_ecc_repairable_uncorrected = 0;
    // The registers' upper halves, which no sysfs file shows; the runtime's
    // tools (neuron-monitor's neuron_hw_counters) report them.
    std::uint32_t sram_ecc_corrected = 0;
    std::uint32_t mem_ecc_corrected = 0;
    bool operator==(const ecc_readout&) const = default;
};

// How a driver release reads the HBM registers (driver-sysfs.md §1, §6):
// the channels it sums (every one from 2.19, the first two before) and
// whether Trn2's repair state splits the count between the two files (2.23).
struct ecc_reading {
    std::uint32_t channels = UINT32_MAX;
    bool repair_split = true;
};

// Any thread.
ecc_readout read_ecc(const published_state& state, std::uint32_t device, const ecc_reading& how = {});

} // namespace neuron::model
