#include "instances_command.h"

#include "arguments.h"
#include "neuron/common/json_writer.h"
#include "neuron/model/spec/instance_catalogue.h"

#include <fmt/format.h>

namespace neuron::cli {
namespace {

using model::instance_type;

std::string gib(std::uint64_t bytes) { return fmt::format("{} GiB", bytes >> 30); }

void print_table() {
    fmt::print("{:<16} {:>7} {:>9} {:>7} {:>10}  {:<5} {:<5} {:<13} {}\n", "INSTANCE", "DEVICES", "CORES/DEV", "CORES",
               "MEMORY/DEV", "ND", "NC", "INSTANCE_TYPE", "DEVICE_NAME");
    for (const auto& type : model::instance_catalogue()) {
        const auto& spec = type.spec();
        fmt::print("{:<16} {:>7} {:>9} {:>7} {:>10}  {:<5} {:<5} {:<13} {}\n", type.name, type.device_count,
                   type.cores_per_device(), type.total_cores(), gib(type.device_memory_bytes()),
                   fmt::format("ND{}", spec.device_arch_suffix), fmt::format("NC{}", spec.core_arch_suffix),
                   spec.instance_type, spec.device_name);
    }
}

void print_json() {
    common::json_writer json;
    json.begin_array();
    for (const auto& type : model::instance_catalogue()) {
        const auto& spec = type.spec();
        json.begin_object()
            .key("name")
            .value(type.name)
            .key("devices")
            .value(type.device_count)
            .key("cores_per_device")
            .value(type.cores_per_device())
            .key("device_memory_bytes")
            .value(type.device_memory_bytes())
            .key("device_arch_type")
            .value(fmt::format("ND{}", spec.device_arch_suffix))
            .key("core_arch_type")
            .value(fmt::format("NC{}", spec.core_arch_suffix))
            .key("instance_type")
            .value(spec.instance_type)
            .key("device_name")
            .value(spec.device_name)
            .end_object();
    }
    json.end_array();
    fmt::print("{}", json.str());
}

} // namespace

int run_instances(std::span<const std::string> args) {
    argument_parser parser("instances");
    parser.flag("json", "print JSON instead of a table");
    const auto options = parser.parse(args);
    if (options.has("json")) {
        print_json();
    } else {
        print_table();
    }
    return 0;
}

} // namespace neuron::cli
