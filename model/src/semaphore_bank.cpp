#include "neuron/model/semaphore_bank.h"

#include <algorithm>

namespace neuron::model {

semaphore_bank::semaphore_bank(std::uint32_t count)
    : m_count(count), m_values(std::make_unique<std::uint32_t[]>(count)),
      m_changed(std::make_unique<sc_core::sc_event[]>(count)) {}

void semaphore_bank::add(std::uint32_t index, std::uint32_t amount) {
    m_values[index] += amount;
    m_changed[index].notify(sc_core::SC_ZERO_TIME);
}

void semaphore_bank::clear() { std::fill(m_values.get(), m_values.get() + m_count, 0u); }

} // namespace neuron::model
