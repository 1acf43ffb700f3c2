#pragma once

// Engine and queue sets as bit masks (dma_engines): bit i is engine or
// queue i.

#include <bit>
#include <cstdint>

namespace neuron::model {

inline constexpr std::uint32_t max_mask_bits = 32;

// Bits 0 to n - 1.
constexpr std::uint32_t low_bits(std::uint32_t n) { return n >= max_mask_bits ? ~0u : (1u << n) - 1; }

// Calls f(i) for each bit i set in `mask`, lowest first.
template <typename F>
void each_bit(std::uint32_t mask, F f) {
    while (mask != 0) {
        f(static_cast<std::uint32_t>(std::countr_zero(mask)));
        mask &= mask - 1;
    }
}

} // namespace neuron::model
