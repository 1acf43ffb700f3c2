#include "neuron/model/hardware/pe_meter.h"

#include "neuron/model/state/published_state.h"

#include <algorithm>

namespace neuron::model {

pe_meter::pe_meter(published_state& state, std::uint32_t device, std::uint32_t core)
        : m_state(state), m_device(device), m_core(core) {}

void pe_meter::started(std::uint64_t start_ps, std::uint64_t length_ps, const instruction_cursor& first,
                       std::uint64_t count) {
    auto& t = m_timeline;
    t.stretch_start_ps = start_ps;
    t.stretch_ps = length_ps;
    t.stretch_matmul_ps = {};
    t.stretch_weight_load_ps = {};
    m_in_stretch = false;
    auto at = first;
    for (std::uint64_t n = 0; n < count; ++n, at.advance()) {
        const auto& i = *at;
        const auto groups = std::min<std::size_t>(i.row_groups, pe_row_groups);
        for (std::size_t g = 0; g < groups; ++g) {
            t.stretch_matmul_ps[g] += i.busy_ps;
            t.stretch_weight_load_ps[g] += i.weight_load_ps;
        }
        m_in_stretch = m_in_stretch || groups > 0;
    }
    if (m_in_stretch) m_state.publish(m_device, m_core, t);
}

void pe_meter::stopped(std::uint64_t done_ps) {
    if (!m_in_stretch) return; // its instructions used no row group: nothing to publish
    m_in_stretch = false;
    auto& t = m_timeline;
    const auto share = [&](std::uint64_t ps) {
        return done_ps >= t.stretch_ps
                   ? ps
                   : static_cast<std::uint64_t>(static_cast<unsigned __int128>(ps) * done_ps / t.stretch_ps);
    };
    for (std::size_t g = 0; g < pe_row_groups; ++g) {
        t.matmul_ps[g] += share(t.stretch_matmul_ps[g]);
        t.weight_load_ps[g] += share(t.stretch_weight_load_ps[g]);
    }
    const bool cut_short = done_ps < t.stretch_ps;
    t.stretch_ps = 0;
    t.stretch_matmul_ps = {};
    t.stretch_weight_load_ps = {};
    // A reader counts a stretch that has run to its end in full already; the
    // next start publishes it folded in.
    if (cut_short) m_state.publish(m_device, m_core, t);
}

} // namespace neuron::model
