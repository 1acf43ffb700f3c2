#include "neuron/model/driver/memory_ledger.h"

#include "neuron/model/driver/category_poller.h"

#include "neuron/model/driver/counter_bank.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/state/published_state.h"

#include <fmt/format.h>
#include <limits>

namespace neuron::model {

memory_ledger::memory_ledger(published_state& state, counter_bank& counters)
        : m_state(state), m_counters(counters), m_device_bytes(state.device_count(), 0) {}

allocation_id memory_ledger::allocate(owner_id owner, std::uint32_t device, std::uint32_t core, mem_location where,
                                      std::uint32_t raw_mem_type, std::uint64_t size) {
    m_state.check_core(device, static_cast<std::int32_t>(core));
    if (size == 0) throw invalid_argument_error("allocation size must be at least 1 byte");
    if (size > std::numeric_limits<std::uint64_t>::max() - (page_size - 1)) {
        throw invalid_argument_error(fmt::format("allocation size {} too large", size));
    }
    const std::uint64_t bytes = (size + page_size - 1) / page_size * page_size;
    if (where == mem_location::device) {
        const std::uint64_t capacity = m_state.spec().memory_bytes();
        if (bytes > capacity - m_device_bytes[device]) {
            throw out_of_memory_error(fmt::format("device {}: {} bytes requested, {} of {} bytes free", device, bytes,
                                                  capacity - m_device_bytes[device], capacity));
        }
        m_device_bytes[device] += bytes;
    }
    const allocation a{m_next_id++, owner, device, core, where, raw_mem_type, bytes};
    m_allocations.emplace(a.id, a);
    count(a, true);
    return a.id;
}

void memory_ledger::free(allocation_id id) {
    auto it = m_allocations.find(id);
    if (it == m_allocations.end()) {
        throw invalid_argument_error(fmt::format("no allocation with id {}", id));
    }
    const allocation a = it->second;
    m_allocations.erase(it);
    if (a.where == mem_location::device) m_device_bytes[a.device] -= a.bytes;
    count(a, false);
}

void memory_ledger::free_all(owner_id owner) {
    for (const auto& a : owned_by(owner)) free(a.id);
}

const allocation* memory_ledger::find(allocation_id id) const {
    auto it = m_allocations.find(id);
    return it == m_allocations.end() ? nullptr : &it->second;
}

std::vector<allocation> memory_ledger::owned_by(owner_id owner) const {
    std::vector<allocation> result;
    for (const auto& [id, a] : m_allocations) {
        if (a.owner == owner) result.push_back(a);
    }
    return result;
}

std::uint64_t memory_ledger::device_bytes_in_use(std::uint32_t device) const {
    m_state.check_device(device);
    return m_device_bytes[device];
}

void memory_ledger::count(const allocation& a, bool allocating) {
    const auto total_kind = a.where == mem_location::host ? counter_kind::host_mem : counter_kind::device_mem;
    const auto total = counter_ref::of_core(a.device, a.core, total_kind);
    const auto category_kind = category_counter(a.raw_mem_type, a.where);
    // Host categories are per device, device categories per core. A host
    // allocation tagged with a device category lands in a device-level slot
    // no file shows, exactly as in the driver.
    const auto category = a.where == mem_location::host ? counter_ref::of_device(a.device, category_kind)
                                                        : counter_ref::of_core(a.device, a.core, category_kind);
    if (allocating) {
        m_counters.increment(total, a.bytes);
        if (m_poller != nullptr) {
            m_poller->add(category, a.bytes);
        } else {
            m_counters.increment(category, a.bytes);
        }
    } else {
        m_counters.decrement(total, a.bytes);
        if (m_poller != nullptr) {
            m_poller->remove(category, a.bytes);
        } else {
            m_counters.decrement(category, a.bytes);
        }
    }
}

} // namespace neuron::model
