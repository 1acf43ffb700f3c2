#pragma once

#include <cstdint>
#include <vector>

namespace neuron::model {

class dma_engine;

// A device's DRAM/HBM bandwidth, shared fairly by the DMA transfers that
// read or write it: each gets the smaller of its engine's rate and an equal
// share. Shares change only when such a transfer starts or ends, and only
// then are the engines told. Kernel thread only.
class memory_bandwidth {
public:
    explicit memory_bandwidth(std::uint64_t bytes_per_ns) : m_bytes_per_ns(bytes_per_ns) {}

    void join(dma_engine& e);
    void leave(dma_engine& e);
    std::size_t active() const { return m_active.size(); }
    // Bytes per picosecond a transfer on an engine of `peak` gets now.
    double share(double peak) const;

private:
    void rebalance();

    std::uint64_t m_bytes_per_ns;
    std::vector<dma_engine*> m_active;
};

} // namespace neuron::model
