#include "neuron/profile/summary.h"

#include "neuron/profile/naming.h"

#include "summary_bandwidth.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

namespace neuron::profile {
namespace {

struct interval {
    std::uint64_t start;
    std::uint64_t end;
};

// What intervals in order of their starts cover: each adds what reaches
// past the ones before it.
class coverage {
public:
    void add(const interval& s) {
        const auto from = std::max(s.start, m_reach);
        if (s.end > from) m_total += s.end - from;
        m_reach = std::max(m_reach, s.end);
    }
    std::uint64_t total() const { return m_total; }

private:
    std::uint64_t m_total = 0;
    std::uint64_t m_reach = 0;
};

void sort_by_start(std::vector<interval>& spans) {
    std::sort(spans.begin(), spans.end(), [](const interval& a, const interval& b) { return a.start < b.start; });
}

// Nanoseconds covered by at least one interval of `spans`, sorted by start.
std::uint64_t covered(const std::vector<interval>& spans) {
    coverage c;
    for (const auto& s : spans) c.add(s);
    return c.total();
}

// Nanoseconds covered by at least one interval of any list, each sorted by
// start: merged as they are, not copied into one.
template <std::size_t N>
std::uint64_t covered(const std::array<const std::vector<interval>*, N>& lists) {
    std::array<std::size_t, N> next{};
    coverage c;
    for (;;) {
        std::size_t pick = N;
        for (std::size_t k = 0; k < N; ++k) {
            if (next[k] == lists[k]->size()) continue;
            if (pick == N || (*lists[k])[next[k]].start < (*lists[pick])[next[pick]].start) pick = k;
        }
        if (pick == N) return c.total();
        c.add((*lists[pick])[next[pick]++]);
    }
}

double seconds(std::uint64_t ns) { return static_cast<double>(ns) / 1e9; }
double fraction(double part, double whole) { return whole > 0 ? part / whole : 0.0; }
// A utilisation: a `work:` model may declare more MACs or bytes than its
// cycles could do; it reads as the whole peak, not more.
double utilisation(double part, double whole) { return std::min(1.0, fraction(part, whole)); }

class summary_builder {
public:
    void add(std::string key, summary_value value) { m_fields.push_back({std::move(key), std::move(value)}); }
    std::vector<summary_field> take() { return std::move(m_fields); }

private:
    std::vector<summary_field> m_fields;
};

struct engine_figures {
    std::uint64_t count = 0;
    std::uint64_t instruction_ns = 0;
    std::vector<interval> spans;
};

} // namespace

std::string worker_key(const core_timeline& t) {
    return fmt::format("{}", std::uint64_t{t.device} * t.figures.cores_per_device + t.core);
}

std::vector<summary_field> summarize(const core_timeline& t) {
    const auto total_ns = to_ns(t.end_ps) - to_ns(t.start_ps);
    const auto total_s = seconds(total_ns);
    const auto& f = t.figures;

    std::array<engine_figures, engine_count> engines;
    for (const auto& r : t.instructions) ++engines[r.engine].count;
    for (auto& e : engines) e.spans.reserve(e.count);
    std::uint64_t macs = 0;
    std::uint64_t transpose_macs = 0; // of the Tensor engine's transposes: hardware work, not the model's
    std::uint64_t matmuls = 0;
    std::uint64_t activates = 0;
    std::uint64_t activate_ns = 0;
    const auto opcodes = shown_opcodes(t);
    for (const auto& r : t.instructions) {
        const interval span{to_ns(r.start_ps), to_ns(r.end_ps)};
        auto& e = engines[r.engine];
        e.instruction_ns += span.end - span.start;
        e.spans.push_back(span);
        const auto& opcode = opcodes[r.opcode];
        if (opcode == "NC_TRANSPOSE" && r.engine == tensor_engine) {
            transpose_macs += r.macs;
            ++matmuls; // the PE array runs it as a matmul by the identity (K2: 64 transposes, 64 matmuls)
        } else {
            macs += r.macs;
        }
        if (opcode == "MATMUL") ++matmuls;
        if (opcode == "ACTIVATE" || opcode == "ACTIVATION_REDUCE") {
            ++activates;
            activate_ns += span.end - span.start;
        }
    }
    std::vector<interval> dma_spans;
    dma_spans.reserve(t.dma_runs.size());
    for (const auto& d : t.dma_runs) dma_spans.push_back({to_ns(d.start_ps), to_ns(d.end_ps)});
    sort_by_start(dma_spans);
    for (auto& e : engines) sort_by_start(e.spans);
    std::uint64_t transfer_bytes = 0;
    std::uint64_t hbm_read = 0;
    std::uint64_t hbm_write = 0;
    std::set<std::string> queues;
    for (const auto& x : t.transfers) {
        transfer_bytes += x.bytes();
        if (x.from == memory::hbm) hbm_read += x.bytes();
        if (x.to == memory::hbm) hbm_write += x.bytes();
        queues.insert(queue_of(x));
    }

    const auto model_flops = 2 * macs;
    const auto transpose_flops = 2 * transpose_macs;
    const auto hardware_flops = model_flops + transpose_flops;
    const double peak_flops = 2.0 * f.pe_rows * f.pe_columns * static_cast<double>(f.engine_clock_hz[0]);
    // MFU and HFU take the logical core's peak: K2's hfu_estimated_percent
    // (trn2.3xlarge, LNC=2) is its hardware_flops over twice one physical
    // core's peak times total_time, to 8 digits. The bandwidth stays one
    // physical core's (K1's mbu_estimated_percent).
    const double logical_peak_flops = peak_flops * t.lnc;
    const double hbm_per_core = summary_core_hbm_bytes_per_s(t);
    // From the first activity to the last: total_time less the execution's
    // preamble and postamble (engines-calibration.md), gaps between them
    // included, as a DMA's start latency is.
    interval active{UINT64_MAX, 0};
    const auto widen = [&](const std::vector<interval>& spans) {
        for (const auto& s : spans) active = {std::min(active.start, s.start), std::max(active.end, s.end)};
    };
    widen(dma_spans);
    for (const auto& e : engines) widen(e.spans);
    const auto active_ns = active.end > active.start ? active.end - active.start : 0;
    const auto dma_ns = covered(dma_spans);

    summary_builder s;
    s.add("nc_idx", std::uint64_t{t.core});
    s.add("nd_idx", std::uint64_t{t.device});
    s.add("total_time", total_s);
    s.add("neuroncore_cycle_count", total_ns * f.core_clock_hz / 1'000'000'000);
    s.add("total_active_time", seconds(active_ns));
    s.add("total_active_time_percent", fraction(static_cast<double>(active_ns), static_cast<double>(total_ns)));
    s.add("event_count", std::uint64_t{t.instructions.size() + t.dma_runs.size()});
    s.add("model_flops", model_flops);
    s.add("hardware_flops", hardware_flops);
    s.add("transpose_flops", transpose_flops);
    s.add("mm_arithmetic_intensity",
          fraction(static_cast<double>(model_flops), static_cast<double>(hbm_read + hbm_write)));
    s.add("peak_flops_bandwidth_ratio", fraction(peak_flops, hbm_per_core));
    s.add("mfu_estimated_percent", utilisation(static_cast<double>(model_flops), logical_peak_flops * total_s));
    s.add("hfu_estimated_percent", utilisation(static_cast<double>(hardware_flops), logical_peak_flops * total_s));
    s.add("mbu_estimated_percent", utilisation(static_cast<double>(hbm_read + hbm_write), hbm_per_core * total_s));
    s.add("dma_active_time", seconds(dma_ns));
    s.add("dma_active_time_percent", fraction(static_cast<double>(dma_ns), static_cast<double>(total_ns)));
    s.add("dma_active_cycles", dma_ns * f.core_clock_hz / 1'000'000'000);
    s.add("dma_transfer_count", std::uint64_t{t.transfers.size()});
    s.add("dma_transfer_total_bytes", transfer_bytes);
    s.add("dma_transfer_average_bytes",
          t.transfers.empty() ? 0.0 : static_cast<double>(transfer_bytes) / static_cast<double>(t.transfers.size()));
    s.add("dma_queue_count", std::uint64_t{queues.size()});
    s.add("hbm_read_bytes", hbm_read);
    s.add("hbm_write_bytes", hbm_write);
    for (std::size_t k = 0; k < engine_count; ++k) {
        if (f.engine_clock_hz[k] == 0) continue; // the core has no such engine
        const auto& e = engines[k];
        const auto prefix = fmt::format("{}_engine_", engine_names[k]);
        const auto busy = covered(e.spans);
        s.add(prefix + "instruction_count", e.count);
        s.add(prefix + "instruction_time", seconds(e.instruction_ns));
        s.add(prefix + "active_time", seconds(busy));
        s.add(prefix + "active_time_percent", fraction(static_cast<double>(busy), static_cast<double>(total_ns)));
    }
    s.add("matmul_instruction_count", matmuls);
    s.add("activate_instruction_count", activates);
    s.add("activate_instruction_time", seconds(activate_ns));
    if (const auto limited = total_throttled(t); limited.time_ps > 0) { // the Tensor engine ran under its limit
        s.add(fmt::format("throttle_active_nc{}_time_ns", t.core), to_ns(limited.time_ps));
        s.add(fmt::format("throttle_avg_util_limit_nc{}_percent", t.core),
              fraction(static_cast<double>(limited.work_ps), static_cast<double>(limited.time_ps)));
    }
    return s.take();
}

} // namespace neuron::profile
