#include "collective_reduce.h"

#include "nrt/nrt.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace neuron::shim {
namespace {

float from_bf16(std::uint16_t v) {
    const std::uint32_t bits = std::uint32_t{v} << 16;
    float f = 0;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

std::uint16_t to_bf16(float f) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof(bits));
    if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40); // NaN stays NaN
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<std::uint16_t>(bits >> 16);
}

template <typename T>
T combine(long long op, T a, T b) {
    switch (op) {
    case NRT_OP_MAX: return std::max(a, b);
    case NRT_OP_MIN: return std::min(a, b);
    default:
        if constexpr (std::is_integral_v<T>) {
            using wide = std::make_unsigned_t<T>; // integers wrap as the hardware's do
            return static_cast<T>(static_cast<wide>(static_cast<wide>(a) + static_cast<wide>(b)));
        } else {
            return a + b;
        }
    }
}

template <typename T>
void reduce_as(long long op, const std::string& gathered, std::size_t ranks, std::size_t bytes, std::uint8_t* out) {
    const auto count = bytes / sizeof(T);
    for (std::size_t i = 0; i < count; ++i) {
        T acc{};
        std::memcpy(&acc, gathered.data() + i * sizeof(T), sizeof(T));
        for (std::size_t r = 1; r < ranks; ++r) {
            T v{};
            std::memcpy(&v, gathered.data() + r * bytes + i * sizeof(T), sizeof(T));
            acc = combine(op, acc, v);
        }
        std::memcpy(out + i * sizeof(T), &acc, sizeof(T));
    }
}

void reduce_bf16(long long op, const std::string& gathered, std::size_t ranks, std::size_t bytes, std::uint8_t* out) {
    const auto count = bytes / 2;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t raw = 0;
        std::memcpy(&raw, gathered.data() + i * 2, 2);
        float acc = from_bf16(raw);
        for (std::size_t r = 1; r < ranks; ++r) {
            std::memcpy(&raw, gathered.data() + r * bytes + i * 2, 2);
            acc = combine(op, acc, from_bf16(raw));
        }
        raw = to_bf16(acc);
        std::memcpy(out + i * 2, &raw, 2);
    }
}

} // namespace

std::optional<std::size_t> reducible_size(long long dtype) {
    switch (dtype) {
    case NRT_DTYPE_INT8:
    case NRT_DTYPE_UINT8: return 1;
    case NRT_DTYPE_INT16:
    case NRT_DTYPE_UINT16:
    case NRT_DTYPE_BFLOAT16: return 2;
    case NRT_DTYPE_INT32:
    case NRT_DTYPE_UINT32:
    case NRT_DTYPE_FLOAT32:
    case NRT_DTYPE_FP32R: return 4;
    case NRT_DTYPE_INT64:
    case NRT_DTYPE_UINT64: return 8;
    default: return std::nullopt;
    }
}

bool reducible_op(long long op) { return op == NRT_OP_ADD || op == NRT_OP_MAX || op == NRT_OP_MIN; }

void reduce_blocks(long long dtype, long long op, const std::string& gathered, std::size_t ranks, std::size_t bytes,
                   std::uint8_t* out) {
    switch (dtype) {
    case NRT_DTYPE_INT8: return reduce_as<std::int8_t>(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_UINT8: return reduce_as<std::uint8_t>(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_INT16: return reduce_as<std::int16_t>(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_UINT16: return reduce_as<std::uint16_t>(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_BFLOAT16: return reduce_bf16(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_INT32: return reduce_as<std::int32_t>(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_UINT32: return reduce_as<std::uint32_t>(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_FLOAT32:
    case NRT_DTYPE_FP32R: return reduce_as<float>(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_INT64: return reduce_as<std::int64_t>(op, gathered, ranks, bytes, out);
    case NRT_DTYPE_UINT64: return reduce_as<std::uint64_t>(op, gathered, ranks, bytes, out);
    default: return;
    }
}

} // namespace neuron::shim
