#pragma once

#include "neuron/model/driver/device_openers.h"
#include "neuron/model/driver/memory_ledger.h"
#include "neuron/model/driver/owner_id.h"
#include "neuron/model/spec/counter.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace neuron::model {

class counter_bank;
class published_state;

// What a runtime session accumulates for one core before release: the
// datastore counters the driver aggregates (driver-sysfs.md §3 "status").
struct core_accumulator {
    std::array<std::uint64_t, 24> status{}; // indexed like counters_in(counter_group::status)
    std::uint64_t model_loads = 0;
    std::uint64_t inferences = 0;
    std::uint64_t macs = 0;           // flop_count gets 2 x macs
    std::uint64_t time_in_use_us = 0; // nc_time_in_use
};

struct owner_summary {
    owner_id id;
    std::string label;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> cores; // (device, core)
    std::set<std::uint32_t> devices;
    // What it accumulated so far, by (device, core): what only the runtime sees before release.
    std::map<std::pair<std::uint32_t, std::uint32_t>, core_accumulator> accumulated;
    std::vector<allocation> memory; // what it holds now, as the runtime counts it
};

// Runtime sessions: which cores each owns (exclusively), which devices each
// has open, its memory, and its status accumulators. Releasing a session (its
// process exiting or crashing) frees its memory and cores and aggregates its
// accumulators into the status and other_info counters, with present = this
// session's contribution.
class owner_registry : public device_openers {
public:
    owner_registry(published_state& state, counter_bank& counters, memory_ledger& memory);

    owner_id open(std::string label);
    void release(owner_id owner);

    // Opening the device file: a device with any session attached is "open"
    // and refuses the sysfs reset.
    void attach(owner_id owner, std::uint32_t device);
    void acquire_cores(owner_id owner, std::uint32_t device, std::uint32_t core_mask);

    allocation_id allocate(owner_id owner, std::uint32_t device, std::uint32_t core, mem_location where,
                           std::uint32_t raw_mem_type, std::uint64_t size);
    void free(owner_id owner, allocation_id id);

    // Adds to a status counter, model_load_count, inference_count or
    // nc_time_in_use of this session; flop_count is fed by record_macs.
    void record(owner_id owner, std::uint32_t device, std::uint32_t core, counter_kind kind, std::uint64_t amount);
    void record_macs(owner_id owner, std::uint32_t device, std::uint32_t core, std::uint64_t macs);

    bool device_open(std::uint32_t device) const override;
    std::optional<owner_id> core_owner(std::uint32_t device, std::uint32_t core) const;
    std::vector<owner_summary> owners() const;
    bool exists(owner_id owner) const { return m_owners.contains(owner); }

private:
    struct session {
        std::string label;
        std::set<std::uint32_t> devices;
        std::map<std::pair<std::uint32_t, std::uint32_t>, core_accumulator> accumulators;
    };

    session& get(owner_id owner);
    core_accumulator& accumulator(owner_id owner, std::uint32_t device, std::uint32_t core);
    void aggregate(std::uint32_t device, std::uint32_t core, const core_accumulator& acc);

    published_state& m_state;
    counter_bank& m_counters;
    memory_ledger& m_memory;
    std::map<owner_id, session> m_owners;
    std::map<std::pair<std::uint32_t, std::uint32_t>, owner_id> m_core_owners;
    owner_id m_next_id = 1;
};

} // namespace neuron::model
