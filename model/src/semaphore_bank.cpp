#include "neuron/model/semaphore_bank.h"

#include <algorithm>

namespace neuron::model {

semaphore_bank::semaphore_bank(std::uint32_t count)
    : m_count(count), m_values(std::make_unique<std::uint32_t[]>(count)),
      m_changed(std::make_unique<sc_core::sc_event[]>(count)), m_changed_at(std::make_unique<std::uint64_t[]>(count)) {}

void semaphore_bank::add(std::uint32_t index, std::uint32_t amount) {
    m_values[index] += amount;
    m_changed_at[index] = static_cast<std::uint64_t>(sc_core::sc_time_stamp().value());
    m_changed[index].notify(sc_core::SC_ZERO_TIME);
}

void semaphore_bank::clear() {
    std::fill(m_values.get(), m_values.get() + m_count, 0u);
    std::fill(m_changed_at.get(), m_changed_at.get() + m_count, 0u);
}

} // namespace neuron::model
