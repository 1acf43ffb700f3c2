#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace neuron::model {

// Runs callbacks at given simulated times on the kernel thread, in time
// order (callbacks due at the same time run in the order they were
// scheduled). One SC_METHOD serves them all: nothing ticks in between.
class timed_callbacks : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(timed_callbacks);
    explicit timed_callbacks(sc_core::sc_module_name name);

    // Kernel thread only.
    void at(sc_core::sc_time when, std::function<void()> callback);
    void after(sc_core::sc_time delay, std::function<void()> callback) {
        at(sc_core::sc_time_stamp() + delay, std::move(callback));
    }
    std::size_t pending() const { return m_queue.size(); }

private:
    struct entry {
        sc_core::sc_time when;
        std::uint64_t order;
        std::function<void()> callback;
    };
    struct later {
        bool operator()(const entry& a, const entry& b) const {
            return a.when != b.when ? a.when > b.when : a.order > b.order;
        }
    };

    void run_due();

    std::priority_queue<entry, std::vector<entry>, later> m_queue;
    std::uint64_t m_next_order = 0;
    sc_core::sc_event m_wake;
};

} // namespace neuron::model
