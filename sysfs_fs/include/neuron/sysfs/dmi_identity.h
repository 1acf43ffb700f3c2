#pragma once

#include "neuron/model/state/instance_identity.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

// The machine's identity as the kernel shows it from the firmware's DMI
// table (drivers/firmware/dmi-id.c), on an EC2 Nitro instance: where the
// instance type, id and UUID are read from (docs/dmi-identity.md).
namespace neuron::sysfs {

inline constexpr std::string_view dmi_path = "devices/virtual/dmi/id";
inline constexpr std::string_view dmi_class_path = "class/dmi";

enum class dmi_source : std::uint8_t { fixed, instance_type, instance_id, uuid, modalias, uevent };

struct dmi_file {
    std::string_view name;
    std::uint32_t mode; // dmi-id.c's: the serial numbers and the UUID are root's alone
    dmi_source source;
    std::string_view fixed;        // fixed only: what every Nitro instance shows
    std::string_view modalias_key; // its part of modalias, in the kernel's order; empty: none
};

// Each file the directory holds, in the kernel's order of the modalias parts.
std::span<const dmi_file> dmi_files();

// What reading file `index` of dmi_files() gives ("...\n").
std::string dmi_text(std::size_t index, const model::instance_identity& identity);

} // namespace neuron::sysfs
