#include "neuron/model/engine.h"

namespace neuron::model {

dma_engine::dma_engine(std::uint32_t index, std::uint32_t queue_count) : m_index(index) {
    m_queues.reserve(queue_count);
    for (std::uint32_t q = 0; q < queue_count; ++q) m_queues.emplace_back(q);
}

} // namespace neuron::model
