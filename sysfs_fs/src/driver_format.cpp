#include "neuron/sysfs/driver_format.h"

#include "neuron/model/spec/ecc_register.h"

#include <fmt/format.h>

namespace neuron::sysfs {
namespace {

// connected_devices is built in a 20-byte buffer; output that does not fit
// makes the read empty.
constexpr std::size_t connected_devices_limit = 19;

std::string basis_points(std::uint32_t bp) { return fmt::format("{}.{:02}", bp / 100, bp % 100); }

} // namespace

std::string format_counter(std::uint64_t value) { return fmt::format("{}\n", value); }

std::string format_core_count(std::uint32_t cores) { return fmt::format("{}", cores); }

std::string format_connected_devices(std::span<const std::uint32_t> ids) {
    std::string out = fmt::format("{}\n", fmt::join(ids, ", "));
    if (out.size() > connected_devices_limit) return {};
    return out;
}

std::string format_serial_number(std::uint64_t serial) {
    const auto lo = static_cast<std::uint32_t>(serial);
    const auto hi = static_cast<std::uint32_t>(serial >> 32);
    if (serial == 0 || lo == model::register_read_failure || hi == model::register_read_failure) return "\n";
    return fmt::format("{:016x}\n", serial);
}

std::string format_arch_type(bool device_level, std::string_view suffix) {
    return fmt::format("{}{}\n", device_level ? "ND" : "NC", suffix);
}

std::string format_string_line(std::string_view text) { return fmt::format("{}\n", text); }

std::string format_notify_delay(bool notifications_on) { return notifications_on ? "0\n" : "-1\n"; }

std::string format_device_state(model::device_state state) { return fmt::format("{}\n", static_cast<int>(state)); }

std::string format_ecc_count(std::uint32_t count) { return fmt::format("{}\n", count); }

std::string format_utilization(const model::power_reading& reading) {
    return fmt::format("{},{},{},{},{}\n", reading.status.substr(0, 32), reading.epoch_seconds,
                       basis_points(reading.min_bp), basis_points(reading.max_bp), basis_points(reading.avg_bp));
}

std::string format_pe_counters(std::span<const model::pe_row_reading> rows) {
    std::string out = "xrow_grp,mm_active,wl_active,idle\n";
    for (const auto& row : rows) {
        out += fmt::format("{},{},{},{}\n", row.row_group, row.matmul_active, row.weight_load_active, row.idle);
    }
    return out;
}

} // namespace neuron::sysfs
