#include "neuron/model/hardware/memory_ports.h"

#include <algorithm>

namespace neuron::model {

std::uint64_t memory_ports::reserve(engine_kind kind, std::uint8_t memories, std::uint64_t start_ps,
                                    std::uint64_t length_ps) {
    const bool sbuf = (memories & touches_sbuf) != 0 && (kind == engine_kind::vector || kind == engine_kind::gpsimd);
    const bool psum = (memories & touches_psum) != 0 && (kind == engine_kind::vector || kind == engine_kind::scalar);
    if (sbuf) start_ps = std::max(start_ps, m_sbuf_until);
    if (psum) start_ps = std::max(start_ps, m_psum_until);
    if (sbuf) m_sbuf_until = start_ps + length_ps;
    if (psum) m_psum_until = start_ps + length_ps;
    return start_ps;
}

void memory_ports::release(std::uint64_t now_ps) {
    m_sbuf_until = std::min(m_sbuf_until, now_ps);
    m_psum_until = std::min(m_psum_until, now_ps);
}

} // namespace neuron::model
