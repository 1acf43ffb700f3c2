#include "neuron/model/memory_bandwidth.h"

#include "neuron/model/dma_engine.h"

#include <algorithm>

namespace neuron::model {

void memory_bandwidth::join(dma_engine& e) {
    m_active.push_back(&e);
    rebalance();
}

void memory_bandwidth::leave(dma_engine& e) {
    const auto it = std::find(m_active.begin(), m_active.end(), &e);
    if (it == m_active.end()) return;
    m_active.erase(it);
    rebalance();
}

double memory_bandwidth::share(double peak) const {
    if (m_active.empty()) return peak;
    return std::min(peak, static_cast<double>(m_bytes_per_ns) / 1000.0 / static_cast<double>(m_active.size()));
}

void memory_bandwidth::rebalance() {
    for (auto* e : m_active) e->set_rate(share(e->peak_bytes_per_ps()));
}

} // namespace neuron::model
