#include "neuron/model/hardware/execution_recorder.h"

#include "neuron/model/hardware/kernel_time.h"
#include "neuron/model/program/kernel.h"

#include <algorithm>

namespace neuron::model {
namespace {

static_assert(profile::engine_count == engine_count);
static_assert(static_cast<int>(profile::memory::psum) == static_cast<int>(memory_kind::psum));

std::uint32_t or_none(std::uint32_t value, std::uint32_t model_none) {
    return value == model_none ? profile::none : value;
}

} // namespace

execution_recorder::execution_recorder(std::shared_ptr<const program> p, profile::core_timeline& out)
        : m_program(std::move(p)),
          m_out(out), m_meters{engine_meter(*this, engine_kind::tensor), engine_meter(*this, engine_kind::vector),
                               engine_meter(*this, engine_kind::scalar), engine_meter(*this, engine_kind::gpsimd),
                               engine_meter(*this, engine_kind::sync)} {
    m_out.sources = m_program->sources;
    for (const auto& row : opcodes()) m_out.opcodes.emplace_back(row.name);
    m_work_opcode = static_cast<std::uint32_t>(m_out.opcodes.size());
    m_out.opcodes.emplace_back("work");
    m_preamble_opcode = static_cast<std::uint32_t>(m_out.opcodes.size());
    m_out.opcodes.emplace_back("preamble");
}

void execution_recorder::attach(std::span<const std::unique_ptr<engine>> engines, dma_engines& dma,
                                semaphore_bank& semaphores) {
    for (const auto& e : engines) {
        e->record(&m_meters[static_cast<std::size_t>(e->type())]);
        if (e->throttle() != nullptr) {
            m_throttle = e->throttle();
            m_limited_seen_ps = m_throttle->limited_ps();
            m_limited_work_seen_ps = m_throttle->limited_work_ps();
        }
    }
    dma.record(this);
    semaphores.record(this);
}

void execution_recorder::detach(std::span<const std::unique_ptr<engine>> engines, dma_engines& dma,
                                semaphore_bank& semaphores) {
    for (const auto& e : engines) e->record(nullptr);
    dma.record(nullptr);
    semaphores.record(nullptr);
    for (auto& m : m_meters) {
        auto& records = m.records();
        m_out.instructions.insert(m_out.instructions.end(), records.begin(), records.end());
        records.clear();
    }
}

void execution_recorder::engine_meter::started(std::uint64_t start_ps, std::uint64_t length_ps,
                                               const instruction_cursor& first, std::uint64_t count) {
    const auto k = static_cast<std::size_t>(m_kind);
    m_first = m_records.size();
    m_start_ps = start_ps;
    m_length_ps = length_ps;
    // A stretch lasts its instructions' costs, unless trn2's Tensor limit
    // stretched it: then each instruction takes its share.
    std::uint64_t costs = 0;
    auto cursor = first;
    for (std::uint64_t n = 0; n < count; ++n, cursor.advance()) costs += cursor->busy_ps;
    const auto at = [&](std::uint64_t cost_so_far) {
        if (costs == length_ps || costs == 0) return start_ps + cost_so_far;
        return start_ps + static_cast<std::uint64_t>(static_cast<unsigned __int128>(cost_so_far) * length_ps / costs);
    };
    std::uint64_t so_far = 0;
    cursor = first;
    for (std::uint64_t n = 0; n < count; ++n, cursor.advance()) {
        const auto& i = *cursor;
        profile::instruction_record r;
        r.start_ps = at(so_far);
        r.end_ps = at(so_far += i.busy_ps);
        r.macs = i.macs;
        r.index = static_cast<std::uint32_t>(cursor.position()); // a preamble's: in the preamble
        r.opcode = i.op == work_opcode       ? m_owner.m_work_opcode
                   : i.op == preamble_opcode ? m_owner.m_preamble_opcode
                                             : i.op;
        r.source = or_none(i.source, UINT32_MAX);
        r.wait_semaphore = or_none(i.wait_semaphore, no_semaphore);
        r.wait_value = static_cast<std::uint32_t>(cursor.wait_value(i.wait_semaphore, i.wait_value));
        r.signal_semaphore = or_none(i.signal_semaphore, no_semaphore);
        r.signal_increment = r.signal_semaphore == profile::none ? 0 : i.signal_increment;
        r.transfer = profile::none; // the transfer it issues, when it does
        r.weight_load_ps = i.weight_load_ps;
        r.engine = static_cast<std::uint8_t>(k);
        r.memories = i.memories;
        r.row_groups = i.row_groups;
        m_records.push_back(r);
    }
    if (m_kind == engine_kind::tensor) m_owner.limit_changed(start_ps);
}

// A stretch cut short keeps what had started, up to where it stopped.
void execution_recorder::engine_meter::stopped(std::uint64_t done_ps) {
    if (done_ps < m_length_ps) {
        const auto stop_ps = m_start_ps + done_ps;
        while (m_records.size() > m_first && m_records.back().start_ps >= stop_ps) m_records.pop_back();
        for (auto i = m_first; i < m_records.size(); ++i) m_records[i].end_ps = std::min(m_records[i].end_ps, stop_ps);
    }
    m_first = m_records.size();
    if (m_kind == engine_kind::tensor) m_owner.limit_changed(m_start_ps);
}

// A stretch that started under the limit adds a record from its start; one
// cut short (tensor_throttle::cut) takes back what it did not run.
void execution_recorder::limit_changed(std::uint64_t start_ps) {
    if (m_throttle == nullptr) return;
    const auto limited = m_throttle->limited_ps();
    const auto work = m_throttle->limited_work_ps();
    if (limited > m_limited_seen_ps) {
        m_out.throttled.push_back({start_ps, start_ps + (limited - m_limited_seen_ps), work - m_limited_work_seen_ps});
    } else if (limited < m_limited_seen_ps && !m_out.throttled.empty()) {
        auto& last = m_out.throttled.back();
        last.end_ps -= std::min(last.end_ps - last.start_ps, m_limited_seen_ps - limited);
        last.work_ps -= std::min(last.work_ps, m_limited_work_seen_ps - work);
        if (last.end_ps == last.start_ps) m_out.throttled.pop_back();
    }
    m_limited_seen_ps = limited;
    m_limited_work_seen_ps = work;
}

void execution_recorder::transfer_issued(const dma_transfer& t, std::uint64_t serial, engine_kind issuer,
                                         std::uint64_t arrives_ps) {
    profile::transfer_record r;
    r.issued_ps = now_ps();
    r.arrives_ps = arrives_ps;
    r.bytes_per_partition = t.bytes_per_partition;
    r.partitions = t.partitions;
    r.dma_engines = t.dma_engines;
    r.queue = t.queue;
    r.signal_semaphore = or_none(t.signal_semaphore, no_semaphore);
    r.engine = static_cast<std::uint8_t>(issuer);
    r.from = static_cast<profile::memory>(t.from);
    r.to = static_cast<profile::memory>(t.to);
    const auto index = static_cast<std::uint32_t>(m_out.transfers.size());
    m_transfer_records.emplace(serial, index);
    m_out.transfers.push_back(r);
    auto& issuing = m_meters[static_cast<std::size_t>(issuer)].records();
    if (!issuing.empty()) issuing.back().transfer = index;
}

void execution_recorder::run_ended(const dma_transfer&, std::uint64_t serial, std::uint32_t engines,
                                   std::uint64_t started_ps, std::uint64_t bytes, bool cut) {
    const auto issued = m_transfer_records.find(serial);
    if (issued == m_transfer_records.end()) return; // issued before the recording began
    m_out.dma_runs.push_back({started_ps, now_ps(), bytes, issued->second, engines, cut});
}

void execution_recorder::semaphore_changed(std::uint32_t index, std::uint32_t value) {
    m_out.semaphores.push_back({now_ps(), index, value});
}

void execution_recorder::fault(const fault_strike& f, std::uint64_t at_ps) {
    m_out.faults.push_back({at_ps, std::string(fault_info(f.kind).name), f.status, f.dma_engine});
}
} // namespace neuron::model
