#include "neuron/conformance/target.h"

#include "neuron/model/spec/errors.h"
#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace neuron::conformance {

void attach_control(target_description& t, const std::string& path, bool instance_given, bool release_given) {
    YAML::Node status;
    try {
        protocol::simple_client client(path, protocol::peer_role::control, "neuron-conformance");
        const auto report = client.call<protocol::status_report>(protocol::message_type::status, protocol::empty_body{},
                                                                 protocol::message_type::status_report);
        status = YAML::Load(report.json);
    } catch (const std::exception& e) {
        throw model::invalid_argument_error(fmt::format("--control {}: no emulator answers there: {}", path, e.what()));
    }
    try {
        if (!instance_given) {
            t.instance = &model::find_instance_type(status["instance"].as<std::string>());
            t.candidates.clear();
        }
        if (!release_given) {
            t.release = &sysfs::find_release(status["driver_version"].as<std::string>());
            t.release_exact = true;
        }
        t.served_time =
            status["time"]["mode"].as<std::string>() == "stepped" ? time_mode::stepped : time_mode::realtime;
    } catch (const YAML::Exception& e) {
        throw model::invalid_argument_error(
            fmt::format("--control {}: the emulator's status is not what this runner reads: {}", path, e.what()));
    }
    t.control = path;
    // Everything the emulator does, but a fresh instance (the tree has
    // served others already), host paths (the mount is the device directory
    // alone) and time control when its time is real.
    for (const auto c : all_capabilities()) {
        if (c == capability::root || c == capability::fresh_instance || c == capability::host_paths) continue;
        if (c == capability::time_control && t.served_time != time_mode::stepped) continue;
        t.capabilities.insert(c);
    }
}

} // namespace neuron::conformance
