#pragma once

// The numeric element types the shim computes on (output rules, reductions):
// one table from nrt_dtype_t to the C++ type, and the hardware's wrapping sum.

#include <cstdint>
#include <type_traits>

namespace neuron::shim {

// Calls Op<T>::run(args...) for the dtype's C++ type; false for a dtype
// without one here (bfloat16, float16, float32r, the fp8 types).
template <template <typename> class Op, typename... Args>
bool with_element_type(std::uint32_t dtype, Args&&... args) {
    switch (dtype) {
    case 0x1: Op<std::uint64_t>::run(args...); return true;
    case 0x2: Op<std::int8_t>::run(args...); return true;
    case 0x3: Op<std::uint8_t>::run(args...); return true;
    case 0x4: Op<std::int16_t>::run(args...); return true;
    case 0x5: Op<std::uint16_t>::run(args...); return true;
    case 0x8: Op<std::int32_t>::run(args...); return true;
    case 0x9: Op<std::uint32_t>::run(args...); return true;
    case 0xA: Op<float>::run(args...); return true;
    case 0xC: Op<std::int64_t>::run(args...); return true;
    default: return false;
    }
}

// a + b as the hardware adds: integers wrap (without C++'s signed overflow).
template <typename T>
T wrapping_add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
        return a + b;
    }
}

} // namespace neuron::shim
