#pragma once

#include <systemc>

#include <cstdint>
#include <tuple>
#include <vector>

namespace neuron::model {

// What moves device memory through memory_bandwidth: told when one of its
// transfers has moved all its bytes.
class memory_client {
public:
    virtual void memory_done(std::uint64_t token) = 0;

protected:
    ~memory_client() = default;
};

// A device's DRAM/HBM bandwidth, shared fairly by the DMA transfers that
// read or write it: each moves at the smaller of the DMA engines' rate and
// an equal share. As every transfer moves at the same rate, the model keeps
// one count of the bytes each has moved since the simulation began and one
// event for the transfer that ends first; a transfer starting or ending
// changes the rate and moves that one event, nothing else. An entry may
// stand for several equal transfers moving in lockstep (its weight).
// Kernel thread only.
class memory_bandwidth : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(memory_bandwidth);
    memory_bandwidth(sc_core::sc_module_name name, std::uint64_t bytes_per_ns, double engine_bytes_per_ns);

    // `weight` transfers of `work` bytes each start now; `client` is told
    // `token` when they end. Returns their start mark.
    double start(memory_client& client, std::uint64_t token, double work, std::uint32_t weight);
    // Drops the transfers `client` started with `token`.
    void cancel(memory_client& client, std::uint64_t token);
    // Bytes a transfer that started at `mark` has moved by now.
    double moved_since(double mark) const;
    // Transfers moving now.
    std::uint64_t active() const { return m_weight; }
    // Bytes per picosecond each transfer moves now.
    double rate() const { return m_rate; }

private:
    // (mark at which it ends, its client, its token, its weight)
    using entry = std::tuple<double, memory_client*, std::uint64_t, std::uint32_t>;

    void step();
    void advance();
    void reschedule();
    double marks_at(std::uint64_t now) const;

    double m_total;     // bytes per ps
    double m_peak;      // one DMA engine's, bytes per ps
    double m_marks = 0; // bytes each transfer moved from time 0 to m_marks_at
    std::uint64_t m_marks_at = 0;
    double m_rate = 0;
    std::uint64_t m_weight = 0;           // of the entries
    std::vector<entry> m_ends;            // a heap, the first to end on top
    std::vector<entry> m_ended;           // step()'s, kept to reuse its storage
    std::uint64_t m_wake_at = UINT64_MAX; // when m_first_end is due, if it is
    sc_core::sc_event m_first_end;
};

} // namespace neuron::model
