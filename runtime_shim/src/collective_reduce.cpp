#include "collective_reduce.h"

#include "element_types.h"

#include "nrt/nrt.h"

#include <algorithm>
#include <cstring>

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
    default: return wrapping_add(a, b);
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

template <typename T>
struct reduce_op {
    static void run(long long op, const std::string& gathered, std::size_t ranks, std::size_t bytes,
                    std::uint8_t* out) {
        reduce_as<T>(op, gathered, ranks, bytes, out);
    }
};

template <typename T>
struct size_op {
    static void run(std::size_t& size) { size = sizeof(T); }
};

// float32r reduces as float32 (its rounding mode is the hardware's).
std::uint32_t computed_as(long long dtype) {
    if (dtype < 0 || dtype > 0xFF) return 0;
    if (dtype == NRT_DTYPE_FP32R) return NRT_DTYPE_FLOAT32;
    return static_cast<std::uint32_t>(dtype);
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
    if (dtype == NRT_DTYPE_BFLOAT16) return 2;
    std::size_t size = 0;
    if (!with_element_type<size_op>(computed_as(dtype), size)) return std::nullopt;
    return size;
}

bool reducible_op(long long op) { return op == NRT_OP_ADD || op == NRT_OP_MAX || op == NRT_OP_MIN; }

void reduce_blocks(long long dtype, long long op, const std::string& gathered, std::size_t ranks, std::size_t bytes,
                   std::uint8_t* out) {
    if (dtype == NRT_DTYPE_BFLOAT16) return reduce_bf16(op, gathered, ranks, bytes, out);
    with_element_type<reduce_op>(computed_as(dtype), op, gathered, ranks, bytes, out);
}

} // namespace neuron::shim
