#include "neuron/model/hardware/neuron_core.h"

#include "neuron/model/hardware/kernel_time.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/state/ecc.h"

#include <fmt/format.h>

#include <algorithm>

// Where a fault armed on the core strikes (an engine's instruction, a DMA
// queue's transfer, device memory) and how the run it stops ends.
namespace neuron::model {

void neuron_core::arm(const armed_fault& f) {
    if (f.target.engine && f.target.dma_queue) {
        throw invalid_argument_error("a fault is aimed at an engine or a DMA queue, not both");
    }
    if (f.target.engine && find_engine(*f.target.engine) == nullptr) {
        throw invalid_argument_error(
            fmt::format("neuron_core{} has no {} engine", m_index, engine_name(*f.target.engine)));
    }
    if (f.target.dma_queue && *f.target.dma_queue >= m_dma.queue_count()) {
        throw invalid_argument_error(fmt::format("DMA queue {} does not exist: each DMA engine has queues 0..{}",
                                                 *f.target.dma_queue, m_dma.queue_count() - 1));
    }
    const auto& row = fault_info(f.kind);
    const bool aimable = row.on_instructions || row.on_dma != dma_strike::none;
    if (!aimable && (f.target.engine || f.target.dma_queue)) {
        throw invalid_argument_error(
            fmt::format("{} strikes the whole core: it takes no engine or queue", fault_info(f.kind).name));
    }
    if (f.target.engine && !row.on_instructions) {
        throw invalid_argument_error(fmt::format("{} strikes a DMA queue, not an engine", fault_info(f.kind).name));
    }
    if (f.target.dma_queue && row.on_dma == dma_strike::none) {
        throw invalid_argument_error(fmt::format("{} strikes an engine, not a DMA queue", row.name));
    }
    if (f.kind == fault_kind::collectives_hang && m_program && !m_strike) {
        hang();
        return;
    }
    m_armed.push_back(f);
    watch_for_faults();
}

void neuron_core::memory_error(fault_kind kind) {
    if (!m_program || m_strike || m_memory_error) return;
    const auto& transfers = m_program->transfers;
    if (std::none_of(transfers.begin(), transfers.end(), [](const dma_transfer& t) { return t.touches_hbm(); })) {
        m_memory_error = injected_error{kind, true};
        return;
    }
    if (const auto engine = m_dma.moving_device_memory()) {
        stop_at({kind, fault_info(kind).status, *engine}, now_ps(), true);
        return;
    }
    m_memory_error = injected_error{kind, false};
    watch_for_faults();
}

// The engines report stretches and the DMA engines runs only while a fault
// waits for them: otherwise they run without the calls.
void neuron_core::watch_for_faults() {
    bool engines = false;
    bool dma = false;
    if (m_program && !m_strike) {
        for (const auto& f : m_armed) {
            engines = engines || fault_info(f.kind).on_instructions;
            dma = dma || fault_info(f.kind).on_dma != dma_strike::none;
        }
        dma = dma || (m_memory_error && !m_memory_error->at_end);
    }
    for (const auto& e : m_engines) e->watch(engines ? this : nullptr);
    m_dma.watch(dma ? this : nullptr);
}

void neuron_core::starting(engine_kind kind, std::uint64_t at_ps) {
    for (std::size_t i = 0; i < m_armed.size(); ++i) {
        const auto& f = m_armed[i];
        if (fault_info(f.kind).on_instructions && !f.target.dma_queue &&
            (!f.target.engine || *f.target.engine == kind)) {
            strike(i, at_ps, 0);
            return;
        }
    }
}

void neuron_core::moving(const dma_transfer& t, std::uint32_t first_engine) {
    for (std::size_t i = 0; i < m_armed.size(); ++i) {
        const auto& f = m_armed[i];
        if (f.target.engine || (f.target.dma_queue && *f.target.dma_queue != t.queue)) continue;
        const auto on_dma = fault_info(f.kind).on_dma;
        const bool hits = on_dma == dma_strike::any || (on_dma == dma_strike::device_memory && t.touches_hbm());
        if (hits) {
            strike(i, now_ps(), first_engine);
            return;
        }
    }
    if (m_memory_error && !m_memory_error->at_end && t.touches_hbm()) {
        const auto kind = m_memory_error->kind;
        m_memory_error.reset();
        stop_at({kind, fault_info(kind).status, first_engine}, now_ps(), true);
    }
}

// The fault at `armed_index` strikes at `at_ps` (now or later): it is
// spent, and the run stops then.
void neuron_core::strike(std::size_t armed_index, std::uint64_t at_ps, std::uint32_t dma_engine) {
    if (m_strike) return; // another struck first
    const auto kind = as_struck(m_armed[armed_index].kind, m_ecc.repair_pending());
    if (armed_index == 0 && m_trigger_armed) m_trigger_armed = false;
    m_armed.erase(m_armed.begin() + static_cast<std::ptrdiff_t>(armed_index));
    stop_at({kind, fault_info(kind).status, dma_engine}, at_ps, false);
}

// The run stops with `f` at `at_ps`; `counted`: its memory error is in the
// ECC registers already.
void neuron_core::stop_at(const fault_strike& f, std::uint64_t at_ps, bool counted) {
    if (m_strike) return;
    m_strike = f;
    m_strike_counted = counted;
    m_strike_ps = at_ps;
    m_strike_event.notify(sc_core::sc_time::from_value(at_ps - now_ps()));
    watch_for_faults();
}

void neuron_core::strike_due() {
    if (!m_strike || !m_program) return;
    const auto f = *m_strike;
    m_strike.reset();
    fail(f, m_strike_counted);
}

// The core stops where it is; the runtime gives up on it when its timeout
// runs out, counted from the run's start.
void neuron_core::hang() {
    for (const auto& e : m_engines) e->stop();
    m_dma.stop();
    const auto now = now_ps();
    m_strike = fault_strike{fault_kind::collectives_hang, fault_info(fault_kind::collectives_hang).status, 0};
    m_strike_counted = false;
    m_strike_ps = std::max(now, m_started_ps + m_options.timeout_ps);
    m_strike_event.notify(sc_core::sc_time::from_value(m_strike_ps - now));
    watch_for_faults();
}

// Stops the run with `f`; a memory error not `counted` yet is counted in the
// device's ECC registers where its firmware reports them, an HBM one in the
// core's channel.
void neuron_core::fail(const fault_strike& f, bool counted) {
    const auto& row = fault_info(f.kind);
    if (row.ecc && !counted) {
        const auto channel = row.on_dma == dma_strike::device_memory ? std::optional{m_channel} : std::nullopt;
        try {
            m_ecc.inject(*row.ecc, 1, channel);
        } catch (const unsupported_error&) {
            // Inf1 reports no ECC errors; v2 firmware has no repair state.
        }
    }
    auto report = report_now();
    report.fault = f;
    if (m_recorder) m_recorder->fault(f, now_ps());
    auto done = std::move(m_done);
    report.profile = stop_run();
    if (done) done(report);
}

} // namespace neuron::model
