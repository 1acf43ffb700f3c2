#include "emulator_sampler.h"

#include "neuron/protocol/control_verb_messages.h"
#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <memory>
#include <stdexcept>

namespace neuron::tools {
namespace {

using protocol::message_type;

constexpr const char* client_label = "neuron-emu tools";
constexpr int answer_timeout_ms = 10'000;

memory_breakdown memory_in(const YAML::Node& node) {
    memory_breakdown memory;
    for (const auto& category : node) memory[category.first.as<std::string>()] = category.second.as<std::uint64_t>();
    return memory;
}

model_sample model_in(const YAML::Node& node) {
    model_sample m;
    m.id = node["id"].as<std::uint32_t>();
    m.name = node["name"].as<std::string>();
    m.logical_core = node["logical_core"].as<std::uint32_t>();
    m.running = node["running"].as<bool>();
    for (const auto& core : node["cores"])
        m.cores.emplace_back(core[0].as<std::uint32_t>(), core[1].as<std::uint32_t>());
    m.device_memory = memory_in(node["device_memory"]);
    m.host_memory = memory_in(node["host_memory"]);
    return m;
}

runtime_sample runtime_in(const YAML::Node& node) {
    runtime_sample r;
    r.pid = node["pid"].as<std::uint32_t>();
    r.tag = node["label"].as<std::string>();
    // The shim's label is NEURON_PROCESS_TAG, else "pid N (comm)"; without
    // a tag the runtime's is its pid (neuron-monitor's guide).
    const auto pid_label = "pid " + std::to_string(r.pid);
    if (r.tag == pid_label || r.tag.starts_with(pid_label + " (")) r.tag = std::to_string(r.pid);
    r.runtime_version = node["runtime_version"].as<std::string>();
    r.lnc = node["lnc"].as<std::uint32_t>();
    r.first_logical_core = node["first_logical_core"].as<std::uint32_t>();
    r.logical_cores = node["logical_cores"].as<std::uint32_t>();
    for (const auto& m : node["loaded_models"]) r.models.push_back(model_in(m));
    for (const auto& a : node["activity"]) {
        core_activity activity;
        activity.time_in_use_us = a["time_in_use_us"].as<std::uint64_t>();
        activity.flops = a["flops"].as<std::uint64_t>();
        activity.executions = a["executions"].as<std::uint64_t>();
        for (const auto& s : a["statuses"]) activity.statuses[s.first.as<std::string>()] = s.second.as<std::uint64_t>();
        r.activity[{a["device"].as<std::uint32_t>(), a["core"].as<std::uint32_t>()}] = std::move(activity);
    }
    for (const auto& m : node["memory"]) {
        const physical_core_id where{m[0].as<std::uint32_t>(), m[1].as<std::uint32_t>()};
        auto& to = m[2].as<std::string>() == "device" ? r.device_memory[where] : r.host_memory[where];
        to[m[3].as<std::string>()] += m[4].as<std::uint64_t>();
    }
    for (const auto& l : node["latencies"]) {
        r.latencies.push_back({l[0].as<std::uint64_t>(), l[1].as<std::uint64_t>(), l[2].as<std::uint64_t>()});
    }
    return r;
}

// `work`'s protocol failures as runtime_error naming the emulator.
template <typename Work>
auto translated(const std::string& control_path, Work work) {
    try {
        return work();
    } catch (const protocol::connection_error& e) {
        throw std::runtime_error(fmt::format("cannot reach the emulator at {}: {}", control_path, e.what()));
    } catch (const protocol::request_refused& e) {
        throw std::runtime_error(fmt::format("the emulator at {} refused: {}", control_path, e.what()));
    } catch (const protocol::protocol_error& e) {
        throw std::runtime_error(fmt::format("the emulator at {} answered badly: {}", control_path, e.what()));
    }
}

// An emulator that does not answer (stopped, wedged) must not hang the tool.
std::unique_ptr<protocol::simple_client> connect(const std::string& control_path) {
    return std::make_unique<protocol::simple_client>(control_path, protocol::peer_role::control, client_label,
                                                     answer_timeout_ms);
}

} // namespace

emulator_reading parse_status(const std::string& json) {
    try {
        const auto doc = YAML::Load(json);
        emulator_reading e;
        e.now_ns = doc["time"]["now_ns"].as<std::uint64_t>();
        e.stepped = doc["time"]["mode"].as<std::string>() == "stepped";
        e.instance_type = doc["instance"].as<std::string>();
        e.instance_id = doc["instance_id"].as<std::string>();
        for (const auto& s : doc["sessions"]) e.runtimes.push_back(runtime_in(s));
        for (const auto& d : doc["devices"]) {
            e.corrected_ecc.emplace_back(d["hardware"]["mem_ecc_corrected"].as<std::uint64_t>(),
                                         d["hardware"]["sram_ecc_corrected"].as<std::uint64_t>());
        }
        return e;
    } catch (const YAML::Exception& error) {
        throw std::runtime_error(fmt::format("the emulator's status cannot be read: {}", error.what()));
    }
}

emulator_reading read_emulator(const std::string& control_path) {
    return translated(control_path, [&] {
        return parse_status(connect(control_path)
                                ->call<protocol::status_report>(message_type::status, protocol::empty_body{},
                                                                message_type::status_report)
                                .json);
    });
}

emulator_clock::emulator_clock(const std::string& control_path)
        : m_path(control_path), m_client(translated(control_path, [&] { return connect(control_path); })) {}

emulator_clock::~emulator_clock() = default;

std::uint64_t emulator_clock::now_ns() {
    return translated(m_path, [&] {
        return m_client
            ->call<protocol::clock_reading>(message_type::read_clock, protocol::empty_body{},
                                            message_type::clock_reading)
            .now_ns;
    });
}

} // namespace neuron::tools
