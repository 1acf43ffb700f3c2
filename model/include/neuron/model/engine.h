#pragma once

#include "neuron/model/device_spec.h"

#include <cstdint>
#include <vector>

namespace neuron::model {

// One compute engine of a NeuronCore. Its timing arrives with the engines issue.
class engine {
public:
    explicit engine(engine_spec spec) : m_spec(spec) {}
    engine_kind kind() const { return m_spec.kind; }
    std::uint64_t clock_hz() const { return m_spec.clock_hz; }

private:
    engine_spec m_spec;
};

// A DMA ring served by its engine.
class dma_queue {
public:
    explicit dma_queue(std::uint32_t index) : m_index(index) {}
    std::uint32_t index() const { return m_index; }

private:
    std::uint32_t m_index;
};

class dma_engine {
public:
    dma_engine(std::uint32_t index, std::uint32_t queue_count);
    std::uint32_t index() const { return m_index; }
    const std::vector<dma_queue>& queues() const { return m_queues; }

private:
    std::uint32_t m_index;
    std::vector<dma_queue> m_queues;
};

} // namespace neuron::model
