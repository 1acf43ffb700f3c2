#include "neuron/model/engine.h"

#include "neuron/model/engine_costs.h"
#include "neuron/model/program_builder.h"

#include <algorithm>

namespace neuron::model {

engine::engine(sc_core::sc_module_name name, engine_spec spec, semaphore_bank& semaphores)
    : sc_module(name), m_spec(spec), m_semaphores(semaphores),
      m_dependency_ps(cycles_to_ps(costs::dependency_cycles, spec.clock_hz)) {
    SC_METHOD(step);
    sensitive << m_kick << m_timer;
    dont_initialize();
}

void engine::start(const std::vector<instruction>& stream, finished done, effects ended) {
    m_stream = &stream;
    m_next = 0;
    m_in_stretch = false;
    m_done = std::move(done);
    m_effects = std::move(ended);
    m_kick.notify(sc_core::SC_ZERO_TIME);
}

namespace {
std::uint64_t now_ps() { return static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()); }
} // namespace

void engine::stop() {
    if (m_in_stretch) m_busy_ps += std::min(now_ps() - m_stretch_start, m_stretch_ps);
    m_timer.cancel();
    m_stream = nullptr;
    m_in_stretch = false;
    m_done = nullptr;
    m_effects = nullptr;
}

std::uint64_t engine::busy_ps() const {
    if (!m_in_stretch) return m_busy_ps;
    return m_busy_ps + std::min(now_ps() - m_stretch_start, m_stretch_ps);
}

void engine::end_stretch() {
    m_busy_ps += m_stretch_ps;
    m_in_stretch = false;
    m_next = m_stretch_end;
    const auto& last = (*m_stream)[m_stretch_end - 1];
    if (last.signal_semaphore != no_semaphore) m_semaphores.add(last.signal_semaphore, last.signal_increment);
    if ((last.print != no_print || last.transfer != no_transfer) && m_effects) m_effects(last);
}

// Woken by a start, the end of a stretch, or a semaphore it waits on (or,
// after a stop, by what the abandoned stream waited for: then it finds
// nothing to do).
void engine::step() {
    if (m_stream == nullptr) return;
    const auto now = now_ps();
    if (m_in_stretch) {
        if (now < m_stretch_start + m_stretch_ps) return; // not its end: the timer still runs
        end_stretch();
        if (m_stream == nullptr) return; // what it did stopped the run
    }
    const auto& stream = *m_stream;
    if (m_next < stream.size()) {
        const auto& first = stream[m_next];
        if (first.wait_semaphore != no_semaphore && m_semaphores.value(first.wait_semaphore) < first.wait_value) {
            next_trigger(m_semaphores.changed(first.wait_semaphore) | m_kick);
            return;
        }
        if (first.wait_semaphore != no_semaphore) {
            const auto ready = m_semaphores.changed_at(first.wait_semaphore) + m_dependency_ps;
            if (now < ready) {
                m_timer.notify(sc_core::sc_time::from_value(ready - now));
                return;
            }
        }
        std::uint64_t ps = 0;
        auto i = m_next;
        for (;;) {
            ps += stream[i].busy_ps;
            const bool seen = stream[i].signal_semaphore != no_semaphore || stream[i].print != no_print ||
                              stream[i].transfer != no_transfer;
            ++i;
            if (seen || i == stream.size() || stream[i].wait_semaphore != no_semaphore) break;
        }
        m_stretch_end = i;
        m_stretch_start = now;
        m_stretch_ps = ps;
        m_in_stretch = true;
        m_timer.notify(sc_core::sc_time::from_value(ps));
        return;
    }
    auto done = std::move(m_done);
    m_stream = nullptr;
    m_effects = nullptr;
    if (done) done();
}

} // namespace neuron::model
