#include "neuron/model/execution_unit.h"

#include "neuron/model/ecc.h"
#include "neuron/model/errors.h"
#include "neuron/model/nrt_status.h"
#include "neuron/model/owner_registry.h"
#include "neuron/model/published_state.h"
#include "neuron/model/timed_callbacks.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace neuron::model {

execution_unit::execution_unit(published_state& state, owner_registry& owners, timed_callbacks& timers,
                               debug_event_source& prints)
    : m_state(state), m_owners(owners), m_timers(timers), m_prints(prints) {}

sc_core::sc_time execution_unit::busy_until(std::uint32_t device, std::uint32_t core) const {
    const auto it = m_busy_until.find({device, core});
    return it == m_busy_until.end() ? sc_core::SC_ZERO_TIME : it->second;
}

execution_unit::memory_errors execution_unit::errors_on(std::uint32_t device) const {
    const auto ecc = read_ecc(m_state, device);
    return {ecc.sram_ecc_uncorrected, ecc.mem_ecc_uncorrected, ecc.mem_ecc_repairable_uncorrected};
}

void execution_unit::submit(execution_request request, execution_callback done) {
    if (request.cores.empty()) throw invalid_argument_error("an execution needs at least one core");
    for (const auto core : request.cores) m_state.check_core(request.device, static_cast<std::int32_t>(core));
    if (request.duration.count() < 0) throw invalid_argument_error("an execution cannot take negative time");

    auto start = sc_core::sc_time_stamp();
    for (const auto core : request.cores) start = std::max(start, busy_until(request.device, core));
    const auto end = start + sc_core::sc_time(static_cast<double>(request.duration.count()), sc_core::SC_NS);
    for (const auto core : request.cores) m_busy_until[{request.device, core}] = end;

    // The error counts when it starts are what it compares with at its end.
    // Starting now, that is now: a timed callback would let an error that
    // comes later in this same instant slip in before the baseline.
    const auto id = m_next_id++;
    auto before = std::make_shared<memory_errors>();
    if (start == sc_core::sc_time_stamp()) {
        *before = errors_on(request.device);
    } else {
        m_timers.at(start, [this, before, id] {
            if (const auto it = m_pending.find(id); it != m_pending.end()) *before = errors_on(it->second.request.device);
        });
    }
    m_pending.emplace(id, pending_execution{std::move(request), std::move(done), end});
    m_timers.at(end, [this, before, id] { complete(id, *before); });
}

void execution_unit::complete(std::uint64_t id, const memory_errors& before) {
    const auto it = m_pending.find(id);
    if (it == m_pending.end()) return; // cancelled
    auto execution = std::move(it->second);
    m_pending.erase(it);
    const auto status = outcome(execution.request, before);
    account(execution.request, status);
    for (auto& print : execution.request.prints) m_prints.emit(std::move(print));
    if (execution.done) execution.done(status);
}

void execution_unit::cancel(owner_id owner) {
    std::vector<execution_callback> cancelled;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it->second.request.owner != owner) {
            ++it;
            continue;
        }
        const auto& r = it->second.request;
        for (const auto core : r.cores) m_busy_until[{r.device, core}] = sc_core::sc_time_stamp();
        cancelled.push_back(std::move(it->second.done));
        it = m_pending.erase(it);
    }
    // Another owner's work on those cores (there is none while ownership is
    // exclusive) keeps its place.
    for (const auto& [id, e] : m_pending) {
        for (const auto core : e.request.cores) {
            auto& until = m_busy_until[{e.request.device, core}];
            until = std::max(until, e.end);
        }
    }
    for (auto& done : cancelled) {
        if (done) done(nrt_status::closed);
    }
}

std::uint32_t execution_unit::outcome(const execution_request& request, const memory_errors& before) const {
    if (request.forced_status != nrt_status::success) return request.forced_status;
    const auto after = errors_on(request.device);
    if (after.sram > before.sram) return nrt_status::exec_hw_err_nc_ue;
    if (after.hbm_repairable > before.hbm_repairable) return nrt_status::exec_hw_err_repairable_hbm_ue;
    if (after.hbm > before.hbm) return nrt_status::exec_hw_err_hbm_ue;
    return nrt_status::success;
}

void execution_unit::account(const execution_request& request, std::uint32_t status) {
    if (!m_owners.exists(request.owner)) return; // the process is gone: its datastore went with it
    const auto device = request.device;
    const auto core = request.cores.front();
    if (const auto counter = status_counter(status)) m_owners.record(request.owner, device, core, *counter, 1);
    const auto micros = static_cast<std::uint64_t>(request.duration.count() / 1000);
    if (micros > 0) m_owners.record(request.owner, device, core, counter_kind::nc_time_in_use, micros);
    if (status != nrt_status::success) return;
    m_owners.record(request.owner, device, core, counter_kind::inference_count, 1);
    m_owners.record_macs(request.owner, device, core, request.macs);
    if (request.matmul_cycles == 0) return;
    for (const auto c : request.cores) {
        for (std::uint32_t group = 0; group < m_state.spec().pe_row_groups; ++group) {
            m_state.add_pe_cycles(device, c, group, pe_activity::matmul_active, request.matmul_cycles);
        }
    }
}

} // namespace neuron::model
