#include "neuron/model/hardware/engine.h"

#include "neuron/model/hardware/kernel_time.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/engine_costs.h"

#include <algorithm>
#include <utility>

namespace neuron::model {

engine::engine(sc_core::sc_module_name name, engine_spec spec, const core_costs& costs, semaphore_bank& semaphores)
        : sc_module(name), m_spec(spec), m_semaphores(semaphores),
          m_dependency_ps(cycles_to_ps(costs.dependency_cycles.value, spec.clock_hz)) {
    SC_METHOD(step);
    sensitive << m_kick << m_timer;
    dont_initialize();
    if (spec.kind == engine_kind::tensor && costs.has_tensor_throttle) {
        m_throttle =
            std::make_unique<tensor_throttle>(costs.tensor_throttle_window_ns.value * 1000,
                                              static_cast<double>(costs.tensor_throttle_start_percent.value) / 100,
                                              costs.tensor_throttle_ramp_ns.value * 1000);
    }
}

namespace {

// Work of the Tensor engine's PE array, which its current limit throttles.
bool array_work(const instruction& i) {
    return i.row_groups > 0 || i.op == static_cast<std::uint8_t>(opcode::nc_transpose);
}

} // namespace

void engine::start(const instruction_stream& stream, finished done, effects ended, std::uint64_t after_ps,
                   const instruction_stream* preamble) {
    m_stream = preamble != nullptr ? preamble : &stream;
    m_then = preamble != nullptr ? &stream : nullptr;
    m_next = instruction_cursor(*m_stream);
    m_in_stretch = false;
    m_done = std::move(done);
    m_effects = std::move(ended);
    m_kick.notify(sc_core::sc_time::from_value(after_ps));
}

void engine::stop() {
    if (m_in_stretch) {
        const auto done = stretch_done_ps(now_ps());
        if (m_throttle != nullptr) m_throttle->cut(now_ps());
        m_busy_ps += done;
        if (m_meter != nullptr) m_meter->stopped(done);
        if (m_recorder != nullptr) m_recorder->stopped(done);
    }
    m_timer.cancel();
    m_kick.cancel();
    m_semaphores.forget(*this);
    m_stream = m_then = nullptr;
    m_in_stretch = false;
    m_done = nullptr;
    m_effects = nullptr;
}

// A stretch may be set to start later (after a dependency's latency): it
// counts as busy from then.
std::uint64_t engine::stretch_done_ps(std::uint64_t now) const {
    return now <= m_stretch_start ? 0 : std::min(now - m_stretch_start, m_stretch_ps);
}

std::uint64_t engine::busy_ps() const { return m_in_stretch ? m_busy_ps + stretch_done_ps(now_ps()) : m_busy_ps; }

void engine::end_stretch() {
    m_busy_ps += m_stretch_ps;
    m_in_stretch = false;
    if (m_meter != nullptr) m_meter->stopped(m_stretch_ps);
    if (m_recorder != nullptr) m_recorder->stopped(m_stretch_ps);
    const auto& last = *m_stretch_last;
    if (last.signal_semaphore != no_semaphore) m_semaphores.add(last.signal_semaphore, last.signal_increment);
    const bool transfer = last.transfer != no_transfer && !m_issued_early;
    if ((last.print != no_print || transfer) && m_effects) m_effects(last, now_ps());
}

// The instructions from the next one up to the first that signals, prints
// or starts a transfer, or the last before one that waits, run as one
// stretch starting at `start` (now or later); the timer wakes the process
// at its end. Where every instruction's end is known as the stretch starts
// (no shared ports or throttle move it) and nobody watches or records it,
// its first transfer does not end the stretch: it is issued as the stretch
// starts, told when its instruction ends, so the engine wakes only where
// something can be seen (a transfer's data reaches its engines later still).
void engine::start_stretch(std::uint64_t start, std::uint64_t now) {
    // m_next walks to the stretch's end; a copy of where it began only for
    // those who listen (a copy per stretch costs as much as the walk).
    instruction_cursor first;
    if (m_meter != nullptr || m_recorder != nullptr) first = m_next;
    const auto from = m_next.position();
    std::uint64_t ps = 0;
    std::uint64_t array_ps = 0;
    std::uint8_t memories = 0;
    const instruction* last = nullptr;
    bool may_issue_early = m_observer == nullptr && m_recorder == nullptr && m_ports == nullptr &&
                           m_throttle == nullptr && m_effects != nullptr;
    bool last_issued_early = false; // the text of a loop's trips is one: an address cannot tell them apart
    for (bool stop = false; !stop;) {
        // A run of instructions as written, walked as a span.
        const auto run = m_next.run();
        std::size_t k = 0;
        while (k < run.size()) {
            last = &run[k++];
            ps += last->busy_ps;
            if (array_work(*last)) array_ps += last->busy_ps;
            memories |= last->memories;
            bool ends = last->signal_semaphore != no_semaphore || last->print != no_print;
            last_issued_early = false;
            if (last->transfer != no_transfer) {
                if (may_issue_early) { // one per stretch: a loop of them does not queue all at once
                    m_effects(*last, start + ps);
                    last_issued_early = true;
                    may_issue_early = false;
                } else {
                    ends = true;
                }
            }
            if (ends || (k < run.size() && run[k].wait_semaphore != no_semaphore)) {
                stop = true;
                break;
            }
        }
        m_next.skip(k);
        stop = stop || m_next.done() || m_next->wait_semaphore != no_semaphore;
    }
    if (m_ports != nullptr) start = m_ports->reserve(m_spec.kind, memories, start, ps);
    // The limit stretches the array's work (no generation has both it and shared ports).
    if (m_throttle != nullptr && array_ps > 0) ps = ps - array_ps + m_throttle->run(start, array_ps);
    if (m_observer != nullptr) m_observer->starting(m_spec.kind, start);
    const auto count = m_next.position() - from;
    m_stretch_last = last;
    m_issued_early = last_issued_early;
    m_stretch_start = start;
    m_stretch_ps = ps;
    m_in_stretch = true;
    if (m_meter != nullptr) m_meter->started(start, ps, first, count);
    if (m_recorder != nullptr) m_recorder->started(start, ps, first, count);
    m_timer.notify(sc_core::sc_time::from_value(start + ps - now));
}

// The value the next instruction waits for on this trip of its loops (the
// binder keeps it within a semaphore's range).
std::uint32_t engine::wait_value(std::uint32_t semaphore, std::uint32_t written) const {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(m_next.wait_value(semaphore, written), UINT32_MAX));
}

// Called by the add() that reached the value the next instruction waits
// for: it starts after the dependency latency, without waking before. One
// that waits on more semaphores looks again at the others (it may not wait
// from within an add(): step() does, in the same instant).
void engine::semaphore_reached(std::uint32_t) {
    const auto now = now_ps();
    for (const auto& w : m_next->also_waits) {
        if (w.semaphore == no_semaphore) break;
        if (m_semaphores.value(w.semaphore) < wait_value(w.semaphore, w.value)) {
            m_kick.notify(sc_core::SC_ZERO_TIME);
            return;
        }
    }
    start_stretch(now + m_dependency_ps, now);
}

// Woken by a start or the end of a stretch.
void engine::step() {
    if (m_stream == nullptr) return;
    const auto now = now_ps();
    if (m_in_stretch) {
        if (now < m_stretch_start + m_stretch_ps) return; // not its end: the timer still runs
        end_stretch();
        if (m_stream == nullptr) return; // what it did stopped the run
    }
    if (m_next.done() && m_then != nullptr) { // the preamble ended: the stream starts
        m_stream = std::exchange(m_then, nullptr);
        m_next = instruction_cursor(*m_stream);
    }
    if (!m_next.done()) {
        const auto& first = *m_next;
        if (first.wait_semaphore == no_semaphore) {
            start_stretch(now, now);
            return;
        }
        // It starts the dependency latency after the last of its semaphores
        // changed, once all of them have reached their values.
        const auto value = wait_value(first.wait_semaphore, first.wait_value);
        if (m_semaphores.value(first.wait_semaphore) < value) {
            m_semaphores.wait(first.wait_semaphore, value, *this);
            return;
        }
        auto ready = m_semaphores.changed_at(first.wait_semaphore) + m_dependency_ps;
        for (const auto& w : first.also_waits) {
            if (w.semaphore == no_semaphore) break;
            const auto more = wait_value(w.semaphore, w.value);
            if (m_semaphores.value(w.semaphore) < more) {
                m_semaphores.wait(w.semaphore, more, *this);
                return;
            }
            ready = std::max(ready, m_semaphores.changed_at(w.semaphore) + m_dependency_ps);
        }
        start_stretch(std::max(now, ready), now);
        return;
    }
    auto done = std::move(m_done);
    m_stream = nullptr;
    m_effects = nullptr;
    if (done) done();
}

} // namespace neuron::model
