#include "neuron/sysfs/dmi_identity.h"

#include <array>

namespace neuron::sysfs {
namespace {

constexpr std::uint32_t world_readable = 0444;
constexpr std::uint32_t root_only = 0400;
constexpr std::uint32_t owner_writable = 0644;
constexpr std::string_view vendor = "Amazon EC2";

using s = dmi_source;

// What a Nitro instance's firmware reports; the modalias keys are
// dmi-id.c's, in the order get_modalias() writes them.
constexpr auto files = std::to_array<dmi_file>({
    {"bios_vendor", world_readable, s::fixed, vendor, "bvn"},
    {"bios_version", world_readable, s::fixed, "1.0", "bvr"},
    {"bios_date", world_readable, s::fixed, "10/16/2017", "bd"},
    {"bios_release", world_readable, s::fixed, "1.0", "br"},
    {"sys_vendor", world_readable, s::fixed, vendor, "svn"},
    {"product_name", world_readable, s::instance_type, {}, "pn"},
    {"product_version", world_readable, s::fixed, "", "pvr"},
    {"board_vendor", world_readable, s::fixed, vendor, "rvn"},
    {"board_name", world_readable, s::fixed, "", "rn"},
    {"board_version", world_readable, s::fixed, "", "rvr"},
    {"chassis_vendor", world_readable, s::fixed, vendor, "cvn"},
    {"chassis_type", world_readable, s::fixed, "1", "ct"},
    {"chassis_version", world_readable, s::fixed, "", "cvr"},
    {"product_sku", world_readable, s::fixed, "", "sku"},
    {"product_serial", root_only, s::uuid, {}, {}},
    {"product_uuid", root_only, s::uuid, {}, {}},
    {"board_asset_tag", world_readable, s::instance_id, {}, {}},
    {"chassis_asset_tag", world_readable, s::fixed, vendor, {}},
    {"modalias", world_readable, s::modalias, {}, {}},
    {"uevent", owner_writable, s::uevent, {}, {}},
});

std::string value_of(const dmi_file& f, const model::instance_identity& identity);

// dmi-id.c's ascii_filter: no blanks, no control characters, no ':'.
std::string filtered(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c > ' ' && c < 127 && c != ':') out += c;
    }
    return out;
}

std::string modalias(const model::instance_identity& identity) {
    std::string out = "dmi";
    for (const auto& f : files) {
        if (f.modalias_key.empty()) continue;
        out += ":";
        out += f.modalias_key;
        out += filtered(value_of(f, identity));
    }
    return out + ":";
}

std::string value_of(const dmi_file& f, const model::instance_identity& identity) {
    switch (f.source) {
    case s::fixed: return std::string(f.fixed);
    case s::instance_type: return identity.type;
    case s::instance_id: return identity.id;
    case s::uuid: return identity.uuid;
    case s::modalias: return modalias(identity);
    case s::uevent: return "MODALIAS=" + modalias(identity);
    }
    return {};
}

} // namespace

std::span<const dmi_file> dmi_files() { return files; }

std::string dmi_text(std::size_t index, const model::instance_identity& identity) {
    return value_of(files.at(index), identity) + "\n";
}

} // namespace neuron::sysfs
