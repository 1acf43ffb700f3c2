#pragma once

#include "neuron/model/driver/owner_id.h"
#include "neuron/model/spec/mem_type.h"

#include <cstdint>
#include <map>
#include <vector>

namespace neuron::model {

class category_poller;
class counter_bank;
class published_state;

inline constexpr std::uint64_t page_size = 4096;

using allocation_id = std::uint64_t;

struct allocation {
    allocation_id id;
    owner_id owner;
    std::uint32_t device;
    std::uint32_t core;
    mem_location where;
    std::uint32_t raw_mem_type;
    std::uint64_t bytes; // rounded up to page_size
};

// The driver's mempool accounting (driver-sysfs.md §3): an allocation is
// rounded up to a page and counted twice, once in the core's host_mem or
// device_mem total and once in its category counter (per device for host
// memory, per core for device memory); a free undoes both.
class memory_ledger {
public:
    memory_ledger(published_state& state, counter_bank& counters);
    // Drivers 2.10 to 2.16: category counters follow the datastore through
    // this poller instead of each allocation.
    void poll_categories_with(category_poller& poller) { m_poller = &poller; }

    allocation_id allocate(owner_id owner, std::uint32_t device, std::uint32_t core, mem_location where,
                           std::uint32_t raw_mem_type, std::uint64_t size);
    void free(allocation_id id);
    void free_all(owner_id owner);

    const allocation* find(allocation_id id) const;
    std::vector<allocation> owned_by(owner_id owner) const;
    std::uint64_t device_bytes_in_use(std::uint32_t device) const;

private:
    void count(const allocation& a, bool allocating);

    published_state& m_state;
    category_poller* m_poller = nullptr;
    counter_bank& m_counters;
    std::map<allocation_id, allocation> m_allocations; // ordered: oldest first
    std::vector<std::uint64_t> m_device_bytes;
    allocation_id m_next_id = 1;
};

} // namespace neuron::model
