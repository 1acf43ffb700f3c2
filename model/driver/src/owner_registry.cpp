#include "neuron/model/driver/owner_registry.h"

#include "neuron/model/driver/counter_bank.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/state/published_state.h"

#include <fmt/format.h>

namespace neuron::model {
namespace {

std::size_t status_index(counter_kind kind) {
    return static_cast<std::size_t>(kind) - static_cast<std::size_t>(counter_kind::success);
}

} // namespace

owner_registry::owner_registry(published_state& state, counter_bank& counters, memory_ledger& memory)
        : m_state(state), m_counters(counters), m_memory(memory) {
    static_assert(std::tuple_size_v<decltype(core_accumulator::status)> ==
                  static_cast<std::size_t>(counter_kind::hw_repairable_hbm_ue_error) + 1);
}

owner_id owner_registry::open(std::string label) {
    const auto id = m_next_id++;
    m_owners.emplace(id, session{std::move(label), {}, {}});
    return id;
}

owner_registry::session& owner_registry::get(owner_id owner) {
    auto it = m_owners.find(owner);
    if (it == m_owners.end()) throw invalid_argument_error(fmt::format("no runtime session {}", owner));
    return it->second;
}

void owner_registry::attach(owner_id owner, std::uint32_t device) {
    auto& s = get(owner);
    m_state.check_device(device);
    s.devices.insert(device);
}

void owner_registry::acquire_cores(owner_id owner, std::uint32_t device, std::uint32_t core_mask) {
    auto& s = get(owner);
    m_state.check_device(device);
    const std::uint32_t cores = m_state.cores_per_device();
    if (core_mask == 0 || (cores < 32 && (core_mask >> cores) != 0)) {
        throw invalid_argument_error(
            fmt::format("core mask {:#x} invalid: device {} has cores 0..{}", core_mask, device, cores - 1));
    }
    for (std::uint32_t c = 0; c < cores; ++c) {
        if (!(core_mask & (1u << c))) continue;
        auto it = m_core_owners.find({device, c});
        if (it != m_core_owners.end() && it->second != owner) {
            throw resource_busy_error(fmt::format("core {} of device {} is owned by session {} ({})", c, device,
                                                  it->second, m_owners.at(it->second).label));
        }
    }
    for (std::uint32_t c = 0; c < cores; ++c) {
        if (core_mask & (1u << c)) m_core_owners[{device, c}] = owner;
    }
    s.devices.insert(device);
}

allocation_id owner_registry::allocate(owner_id owner, std::uint32_t device, std::uint32_t core, mem_location where,
                                       std::uint32_t raw_mem_type, std::uint64_t size) {
    auto& s = get(owner);
    const auto id = m_memory.allocate(owner, device, core, where, raw_mem_type, size);
    s.devices.insert(device);
    return id;
}

void owner_registry::free(owner_id owner, allocation_id id) {
    get(owner);
    const auto* a = m_memory.find(id);
    if (a == nullptr || a->owner != owner) {
        throw invalid_argument_error(fmt::format("session {} has no allocation {}", owner, id));
    }
    m_memory.free(id);
}

core_accumulator& owner_registry::accumulator(owner_id owner, std::uint32_t device, std::uint32_t core) {
    auto& s = get(owner);
    m_state.check_core(device, static_cast<std::int32_t>(core));
    s.devices.insert(device);
    return s.accumulators[{device, core}];
}

void owner_registry::record(owner_id owner, std::uint32_t device, std::uint32_t core, counter_kind kind,
                            std::uint64_t amount) {
    const auto group = info_of(kind).group;
    const bool accumulated = group == counter_group::status || kind == counter_kind::model_load_count ||
                             kind == counter_kind::inference_count || kind == counter_kind::nc_time_in_use;
    if (!accumulated) {
        throw invalid_argument_error(
            fmt::format("{} is not a runtime-accumulated counter{}", info_of(kind).name,
                        kind == counter_kind::flop_count ? " (record MACs instead: flop_count = 2 x MACs)" : ""));
    }
    auto& acc = accumulator(owner, device, core);
    switch (kind) {
    case counter_kind::model_load_count: acc.model_loads += amount; break;
    case counter_kind::inference_count: acc.inferences += amount; break;
    case counter_kind::nc_time_in_use: acc.time_in_use_us += amount; break;
    default: acc.status[status_index(kind)] += amount; break;
    }
}

void owner_registry::record_macs(owner_id owner, std::uint32_t device, std::uint32_t core, std::uint64_t macs) {
    accumulator(owner, device, core).macs += macs;
}

void owner_registry::aggregate(std::uint32_t device, std::uint32_t core, const core_accumulator& acc) {
    auto ref = [&](counter_kind k) { return counter_ref::of_core(device, core, k); };
    for (const auto& status : counters_in(counter_group::status)) {
        m_counters.increment(ref(status.kind), acc.status[status_index(status.kind)]);
    }
    m_counters.increment(ref(counter_kind::model_load_count), acc.model_loads);
    m_counters.increment(ref(counter_kind::inference_count), acc.inferences);
    m_counters.increment(ref(counter_kind::flop_count), 2 * acc.macs);
    m_counters.increment(ref(counter_kind::nc_time_in_use), acc.time_in_use_us);
}

void owner_registry::release(owner_id owner) {
    auto& s = get(owner);
    // The driver aggregates the datastore when the process closes its device
    // file, then frees the memory the process still held.
    for (const auto& [where, acc] : s.accumulators) aggregate(where.first, where.second, acc);
    m_memory.free_all(owner);
    std::erase_if(m_core_owners, [owner](const auto& entry) { return entry.second == owner; });
    m_owners.erase(owner);
}

bool owner_registry::device_open(std::uint32_t device) const {
    m_state.check_device(device);
    for (const auto& [id, s] : m_owners) {
        if (s.devices.contains(device)) return true;
    }
    return false;
}

std::optional<owner_id> owner_registry::core_owner(std::uint32_t device, std::uint32_t core) const {
    m_state.check_core(device, static_cast<std::int32_t>(core));
    auto it = m_core_owners.find({device, core});
    if (it == m_core_owners.end()) return std::nullopt;
    return it->second;
}

std::vector<owner_summary> owner_registry::owners() const {
    std::vector<owner_summary> result;
    for (const auto& [id, s] : m_owners) {
        owner_summary summary{id, s.label, {}, s.devices, s.accumulators, m_memory.owned_by(id)};
        for (const auto& [where, holder] : m_core_owners) {
            if (holder == id) summary.cores.push_back(where);
        }
        result.push_back(std::move(summary));
    }
    return result;
}

} // namespace neuron::model
