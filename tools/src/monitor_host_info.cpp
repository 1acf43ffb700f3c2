// instance_info and neuron_hardware_info (always in the report, without a
// period), and the lookups the groups share.

#include "monitor_groups.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

namespace neuron::tools::monitor_detail {
namespace {

// By info/architecture/device_name. Trainium1's and Trainium2's strings are
// the vendor guide's samples (2.19 and current). Inferred: Inferentia's and
// Inferentia2's type as their lower-cased name; their device versions from
// the generations' order, which the driver's arch_type agrees with (NDv1,
// NDv3, as Trainium1's NDv2 is "v2"); their core versions from the driver's
// NCv1 and NCv2. Only Trainium2 has logical cores of two (LNC 2: "v3d").
constexpr std::array<std::pair<std::string_view, hardware_names>, 4> hardware_table{{
    {"Inferentia", {"inferentia", "v1", "v1", ""}},
    {"Inferentia2", {"inferentia2", "v3", "v2", ""}},
    {"Trainium1", {"trainium", "v2", "v2", ""}},
    {"Trainium2", {"trainium2", "v4", "v3", "v3d"}},
}};

} // namespace
} // namespace neuron::tools::monitor_detail

namespace neuron::tools {

const hardware_names* hardware_names_of(std::string_view device_name) {
    const auto it = std::ranges::find(monitor_detail::hardware_table, device_name,
                                      &std::pair<std::string_view, hardware_names>::first);
    return it == monitor_detail::hardware_table.end() ? nullptr : &it->second;
}

} // namespace neuron::tools

namespace neuron::tools::monitor_detail {

const runtime_sample* find_runtime(const host_sample& h, std::uint32_t pid) {
    const auto it = std::ranges::find(h.runtimes, pid, &runtime_sample::pid);
    return it == h.runtimes.end() ? nullptr : &*it;
}

const device_sample* find_device(const host_sample& h, std::uint32_t index) {
    const auto it = std::ranges::find(h.devices, index, &device_sample::index);
    return it == h.devices.end() ? nullptr : &*it;
}

std::uint64_t counter_difference(std::uint64_t now, std::uint64_t before) { return now >= before ? now - before : now; }

std::uint32_t runtime_lnc(const host_sample& h, const runtime_sample& r) {
    if (r.lnc != 0) return r.lnc;
    return h.lnc != 0 ? h.lnc : 1;
}

std::string instance_info_json(const host_sample& h) {
    // The guide names the fields whose absence is an error; the emulator and
    // the host's DMI know only the instance's type and id.
    std::vector<std::string_view> unknown;
    if (h.instance_id.empty()) unknown.push_back("instance_id");
    if (h.instance_type.empty()) unknown.push_back("instance_type");
    for (const auto field : {"instance_availability_zone", "ami_id", "subnet_id"}) unknown.push_back(field);
    common::json_writer w(false);
    w.begin_object().key("instance_name").value("").key("instance_id").value(h.instance_id);
    w.key("instance_type").value(h.instance_type).key("instance_availability_zone").value("");
    w.key("instance_availability_zone_id").value("").key("instance_region").value("");
    w.key("ami_id").value("").key("subnet_id").value("");
    w.key("error").value(fmt::format("no instance metadata: unknown {}", fmt::join(unknown, ", "))).end_object();
    return value_text(w);
}

std::string hardware_info_json(const host_sample& h) {
    std::vector<std::string> errors;
    const device_sample* first = h.devices.empty() ? nullptr : &h.devices.front();
    const hardware_names* names = nullptr;
    if (first == nullptr) {
        errors.emplace_back("no Neuron device found");
    } else {
        names = hardware_names_of(first->device_name);
        if (names == nullptr) {
            errors.push_back(fmt::format("unknown device name '{}'", common::printable(first->device_name, 64)));
        }
        if (first->memory_bytes == 0) errors.emplace_back("the device memory size is unknown");
    }
    std::string_view core_version;
    if (names != nullptr) {
        core_version = core_version_at(*names, h.lnc);
    }
    common::json_writer w(false);
    w.begin_object().key("neuron_device_type").value(names ? names->device_type : "");
    w.key("neuron_device_version").value(names ? names->device_version : "");
    w.key("neuroncore_version").value(core_version);
    w.key("neuron_device_count").value(static_cast<std::uint64_t>(h.devices.size()));
    w.key("neuron_device_memory_size").value(first ? first->memory_bytes : std::uint64_t{0});
    w.key("neuroncore_per_device_count").value(first ? logical_cores_of(h, *first) : 0U);
    w.key("logical_neuroncore_config").value(h.lnc);
    w.key("error").value(fmt::format("{}", fmt::join(errors, "; "))).end_object();
    return value_text(w);
}

} // namespace neuron::tools::monitor_detail
