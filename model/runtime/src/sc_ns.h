#pragma once

#include <systemc>

#include <cstdint>

namespace neuron::model {

// The kernel keeps the default 1 ps resolution; conversions stay in integers
// so times near the kernel's limit do not round past it.
inline constexpr std::uint64_t ps_per_ns = 1000;

inline sc_core::sc_time ns_to_sc(std::uint64_t ns) { return sc_core::sc_time::from_value(ns * ps_per_ns); }

inline std::uint64_t sc_to_ns(const sc_core::sc_time& t) { return t.value() / ps_per_ns; }

} // namespace neuron::model
