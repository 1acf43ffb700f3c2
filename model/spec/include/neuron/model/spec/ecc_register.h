#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace neuron::model {

// Firmware misc-RAM words the driver reads for ECC (driver-sysfs.md §6). Error
// words hold the corrected count in the high 16 bits and the uncorrected count
// in the low 16 bits; the repair-state word holds a 2-bit state.
enum class ecc_register : std::uint8_t { sram, hbm0, hbm1, hbm2, hbm3, hbm_repair_state };

inline constexpr std::size_t ecc_register_count = 6;

// What the driver's MMIO read returns when the read fails.
inline constexpr std::uint32_t register_read_failure = 0xdeadbeef;

constexpr std::uint32_t misc_ram_offset(ecc_register reg) {
    constexpr std::array<std::uint32_t, ecc_register_count> offsets{0x40, 0x44, 0x48, 0x4c, 0x50, 0x64};
    return offsets[static_cast<std::size_t>(reg)];
}

constexpr ecc_register hbm_channel_register(std::uint32_t channel) {
    return static_cast<ecc_register>(static_cast<std::uint32_t>(ecc_register::hbm0) + channel);
}

std::string_view register_name(ecc_register reg);

enum class hbm_repair_state : std::uint8_t { none_pending = 0, pending_repair = 1, repair_failed = 2 };

} // namespace neuron::model
