#include "neuron/control/session_status.h"

#include "neuron/model/spec/counter.h"
#include "neuron/model/spec/mem_type.h"
#include "neuron/protocol/runtime_version.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

namespace neuron::control {
namespace {

void write_memory(common::json_writer& json, const std::vector<model::allocation>& memory, model::mem_location where) {
    std::map<std::string_view, std::uint64_t> by_category;
    for (const auto& a : memory) {
        if (a.where == where)
            by_category[model::info_of(model::category_counter(a.raw_mem_type, a.where)).name] += a.bytes;
    }
    json.begin_object();
    for (const auto& [category, bytes] : by_category) json.key(category).value(bytes);
    json.end_object();
}

void write_models(common::json_writer& json, const std::vector<model::model_summary>& models) {
    json.begin_array();
    for (const auto& m : models) {
        json.begin_object();
        json.key("id").value(m.id);
        json.key("name").value(m.name);
        json.key("logical_core").value(m.logical_core);
        json.key("running").value(m.running);
        json.key("cores").begin_array();
        for (const auto& p : m.cores) json.begin_array().value(p.device).value(p.core).end_array();
        json.end_array();
        json.key("device_memory");
        write_memory(json, m.memory, model::mem_location::device);
        json.key("host_memory");
        write_memory(json, m.memory, model::mem_location::host);
        json.end_object();
    }
    json.end_array();
}

// By (device, core, location, category): [device, core, "device"|"host", category, bytes].
void write_held_memory(common::json_writer& json, const model::owner_summary* owner) {
    std::map<std::tuple<std::uint32_t, std::uint32_t, bool, std::string_view>, std::uint64_t> held;
    if (owner != nullptr) {
        for (const auto& a : owner->memory) {
            const auto category = model::info_of(model::category_counter(a.raw_mem_type, a.where)).name;
            held[{a.device, a.core, a.where == model::mem_location::device, category}] += a.bytes;
        }
    }
    json.begin_array();
    for (const auto& [key, bytes] : held) {
        const auto& [device, core, on_device, category] = key;
        json.begin_array().value(device).value(core).value(on_device ? "device" : "host").value(category).value(bytes);
        json.end_array();
    }
    json.end_array();
}

void write_activity(common::json_writer& json, const model::owner_summary* owner) {
    json.begin_array();
    if (owner != nullptr) {
        const auto statuses = model::counters_in(model::counter_group::status);
        for (const auto& where : owner->cores) {
            const auto found = owner->accumulated.find(where);
            const auto acc = found == owner->accumulated.end() ? model::core_accumulator{} : found->second;
            json.begin_object();
            json.key("device").value(where.first);
            json.key("core").value(where.second);
            json.key("time_in_use_us").value(acc.time_in_use_us);
            json.key("flops").value(2 * acc.macs);
            json.key("executions").value(acc.inferences);
            json.key("statuses").begin_object();
            for (std::size_t i = 0; i < statuses.size() && i < acc.status.size(); ++i) {
                if (acc.status[i] != 0) json.key(statuses[i].name).value(acc.status[i]);
            }
            json.end_object();
            json.end_object();
        }
    }
    json.end_array();
}

} // namespace

void write_sessions(common::json_writer& json, const model::ownership& held,
                    const std::vector<session_process>& processes) {
    json.key("sessions").begin_array();
    for (const auto& s : held.sessions) {
        const auto process = std::find_if(processes.begin(), processes.end(),
                                          [&](const session_process& p) { return p.owner == s.owner; });
        const auto owner = std::find_if(held.owners.begin(), held.owners.end(),
                                        [&](const model::owner_summary& o) { return o.id == s.owner; });
        const bool known = process != processes.end();
        json.begin_object();
        json.key("owner").value(std::uint64_t{s.owner});
        json.key("pid").value(known ? process->pid : 0u);
        json.key("label").value(known ? process->label : s.label);
        json.key("runtime_version").value(protocol::version_text(protocol::shim_runtime_version));
        json.key("lnc").value(s.lnc);
        json.key("first_logical_core").value(s.first);
        json.key("logical_cores").value(s.count);
        json.key("models").begin_array();
        for (const auto& m : s.models) json.value(m.id);
        json.end_array();
        json.key("loaded_models");
        write_models(json, s.models);
        const auto* summary = owner == held.owners.end() ? nullptr : &*owner;
        json.key("activity");
        write_activity(json, summary);
        json.key("memory");
        write_held_memory(json, summary);
        json.key("latencies").begin_array();
        if (known) {
            for (const auto& l : process->latencies->entries()) {
                json.begin_array().value(l.ended_ns).value(l.total_ns).value(l.device_ns).end_array();
            }
        }
        json.end_array();
        json.end_object();
    }
    json.end_array();
}

} // namespace neuron::control
