#include "neuron/model/hardware/semaphore_bank.h"

#include "neuron/model/hardware/kernel_time.h"

#include <systemc>

#include <algorithm>

namespace neuron::model {

semaphore_bank::semaphore_bank(std::uint32_t count)
        : m_count(count), m_values(std::make_unique<std::uint32_t[]>(count)),
          m_changed_at(std::make_unique<std::uint64_t[]>(count)) {}

void semaphore_bank::add(std::uint32_t index, std::uint32_t amount) {
    const auto value = m_values[index] += amount;
    m_changed_at[index] = now_ps();
    if (m_recorder != nullptr) m_recorder->semaphore_changed(index, value);
    for (std::size_t i = 0; i < m_waits.size();) {
        const auto w = m_waits[i];
        if (w.index != index || w.value > value) {
            ++i;
            continue;
        }
        m_waits.erase(m_waits.begin() + static_cast<std::ptrdiff_t>(i));
        w.waiter->semaphore_reached(index);
    }
}

void semaphore_bank::wait(std::uint32_t index, std::uint32_t value, semaphore_waiter& w) {
    forget(w);
    m_waits.push_back({index, value, &w});
}

void semaphore_bank::forget(const semaphore_waiter& w) {
    std::erase_if(m_waits, [&w](const pending_wait& p) { return p.waiter == &w; });
}

void semaphore_bank::clear() {
    std::fill(m_values.get(), m_values.get() + m_count, 0u);
    std::fill(m_changed_at.get(), m_changed_at.get() + m_count, 0u);
}

} // namespace neuron::model
