#include "neuron/model/program/debug_tensor_data.h"

#include "neuron/model/state/debug_event.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace neuron::model {
namespace {

// The bits of `v` in a binary floating-point format of 16 bits or fewer with
// `exponent_bits` and `mantissa_bits`, rounded to the nearest, ties to even
// (as numpy's astype and torch's .to() round), straight from the double so
// nothing is rounded twice.
std::uint16_t to_narrow_float(double v, int exponent_bits, int mantissa_bits) {
    const auto sign = static_cast<std::uint16_t>(std::signbit(v) ? 1u << (exponent_bits + mantissa_bits) : 0u);
    const auto infinity = static_cast<std::uint16_t>(((1u << exponent_bits) - 1) << mantissa_bits);
    if (std::isnan(v)) return static_cast<std::uint16_t>(sign | infinity | (1u << (mantissa_bits - 1)));
    const double a = std::fabs(v);
    const int bias = (1 << (exponent_bits - 1)) - 1;
    const int min_exponent = 1 - bias;
    int exponent = std::ilogb(a);
    double magnitude = 0;
    if (a == 0 || exponent < min_exponent) {
        // Subnormal: counted in units of the smallest one; rounding up to
        // 2^mantissa_bits units gives the smallest normal's bits, as it should.
        magnitude = std::nearbyint(std::ldexp(a, mantissa_bits - min_exponent));
    } else {
        if (exponent > bias) return static_cast<std::uint16_t>(sign | infinity);
        const double significand = std::nearbyint(std::ldexp(a, mantissa_bits - exponent)); // 2^m .. 2^(m+1)
        magnitude = static_cast<double>(exponent + bias) * std::ldexp(1.0, mantissa_bits) + significand -
                    std::ldexp(1.0, mantissa_bits);
    }
    const auto bits = static_cast<std::uint32_t>(magnitude);
    return static_cast<std::uint16_t>(sign | std::min<std::uint32_t>(bits, infinity));
}

template <typename T>
void store(std::uint8_t* at, T v) {
    std::memcpy(at, &v, sizeof(T));
}

void encode(std::string_view dtype, double v, std::uint8_t* at, std::size_t size) {
    if (dtype == "float32" || dtype == "float32r") return store(at, static_cast<float>(v));
    if (dtype == "float16") return store(at, to_narrow_float(v, 5, 10));
    if (dtype == "bfloat16") return store(at, to_narrow_float(v, 8, 7));
    const auto whole = static_cast<std::int64_t>(std::llround(v));
    if (dtype.starts_with("int") || dtype.starts_with("uint")) {
        std::memcpy(at, &whole, size); // little-endian: the low bytes
        return;
    }
    std::memset(at, static_cast<int>(whole & 0xff), size);
}

} // namespace

std::vector<std::uint8_t> print_data(std::string_view dtype, std::uint64_t count, print_fill fill, double value) {
    const auto size = debug_dtype_size(dtype);
    std::vector<std::uint8_t> data(static_cast<std::size_t>(count) * size);
    if (fill == print_fill::iota) {
        for (std::uint64_t i = 0; i < count; ++i) encode(dtype, static_cast<double>(i), data.data() + i * size, size);
        return data;
    }
    // One value everywhere: encode it once and copy it, doubling the copied
    // part each time (a tensor of a million elements would otherwise convert
    // the same value a million times).
    if (data.empty()) return data;
    encode(dtype, value, data.data(), size);
    for (std::size_t done = size; done < data.size(); done *= 2) {
        std::memcpy(data.data() + done, data.data(), std::min(done, data.size() - done));
    }
    return data;
}

debug_event print_event(const device_print& print, std::uint32_t device, std::uint32_t core, double value) {
    debug_event e;
    e.device = device;
    e.core = core;
    e.prefix = print.prefix;
    e.dtype = print.dtype;
    e.shape = print.shape;
    e.pipe = print.pipe;
    std::uint64_t count = 1;
    for (const auto d : print.shape) count *= d;
    e.data = print_data(print.dtype, count, print.fill, value);
    return e;
}

} // namespace neuron::model
