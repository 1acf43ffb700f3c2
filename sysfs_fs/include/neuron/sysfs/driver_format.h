#pragma once

#include "neuron/model/spec/device_state.h"
#include "neuron/model/state/activity.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace neuron::sysfs {

// The bytes the driver's show() functions produce (driver-sysfs.md §2 "Read
// formats"). Tools parse these exactly, so each is pinned by a test.

std::string format_counter(std::uint64_t value);                          // "%llu\n"
std::string format_core_count(std::uint32_t cores);                       // "%d", no newline
std::string format_connected_devices(std::span<const std::uint32_t> ids); // "12, 3, 4, 1\n" or "\n"
std::string format_serial_number(std::uint64_t serial);                   // "%016llx\n" or "\n"
std::string format_arch_type(bool device_level, std::string_view suffix); // "ND"/"NC" + suffix + "\n"
std::string format_string_line(std::string_view text);                    // "%s\n"
std::string format_notify_delay(bool notifications_on);                   // "0\n" / "-1\n"
std::string format_device_state(model::device_state state);               // "%d\n"
std::string format_ecc_count(std::uint32_t count);                        // "%u\n"
std::string format_utilization(const model::power_reading& reading);
std::string format_pe_counters(std::span<const model::pe_row_reading> rows);

} // namespace neuron::sysfs
