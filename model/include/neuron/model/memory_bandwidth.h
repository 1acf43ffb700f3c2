#pragma once

#include <systemc>

#include <cstdint>
#include <set>
#include <utility>

namespace neuron::model {

class dma_engine;

// A device's DRAM/HBM bandwidth, shared fairly by the DMA transfers that
// read or write it: each moves at the smaller of the DMA engines' rate and
// an equal share. As every transfer moves at the same rate, the model keeps
// one count of the bytes each has moved since the simulation began and one
// event for the transfer that ends first; a transfer starting or ending
// changes the rate and moves that one event, nothing else. Kernel thread only.
class memory_bandwidth : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(memory_bandwidth);
    memory_bandwidth(sc_core::sc_module_name name, std::uint64_t bytes_per_ns, std::uint64_t engine_bytes_per_ns);

    // A transfer of `work` bytes starts now; `e` is woken through
    // dma_engine::memory_done() when it ends. Returns its start mark.
    double start(dma_engine& e, double work);
    // Drops the transfer of `e` that started at `mark`.
    void cancel(dma_engine& e, double mark, double work);
    // Bytes a transfer that started at `mark` has moved by now.
    double moved_since(double mark) const;
    std::size_t active() const { return m_ends.size(); }
    // Bytes per picosecond each transfer moves now.
    double rate() const { return m_rate; }

private:
    void step();
    void advance();
    void reschedule();
    double marks_now() const;

    double m_total;  // bytes per ps
    double m_peak;   // one DMA engine's, bytes per ps
    double m_marks = 0;        // bytes each transfer moved from time 0 to m_marks_at
    std::uint64_t m_marks_at = 0;
    double m_rate = 0;
    std::set<std::pair<double, dma_engine*>> m_ends; // (mark at which it ends, its engine)
    sc_core::sc_event m_first_end;
};

} // namespace neuron::model
