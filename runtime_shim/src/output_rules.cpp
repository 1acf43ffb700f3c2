#include "output_rules.h"

#include <cmath>
#include <cstring>

namespace neuron::shim {
namespace {

template <typename T>
void sum_into(std::uint8_t* out, const std::vector<const std::uint8_t*>& sources, std::size_t bytes) {
    const std::size_t n = bytes / sizeof(T);
    for (std::size_t i = 0; i < n; ++i) {
        T total{};
        for (const auto* s : sources) {
            T v;
            std::memcpy(&v, s + i * sizeof(T), sizeof(T));
            if constexpr (std::is_integral_v<T>) {
                using U = std::make_unsigned_t<T>;
                total = static_cast<T>(static_cast<U>(static_cast<U>(total) + static_cast<U>(v)));
            } else {
                total += v;
            }
        }
        std::memcpy(out + i * sizeof(T), &total, sizeof(T));
    }
}

template <typename T>
void fill_with(std::uint8_t* out, double value, std::size_t bytes) {
    T v;
    if constexpr (std::is_integral_v<T>) {
        v = static_cast<T>(std::llround(value));
    } else {
        v = static_cast<T>(value);
    }
    for (std::size_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) std::memcpy(out + i, &v, sizeof(T));
}

template <template <typename> class Op, typename... Args>
void by_dtype(std::uint32_t dtype, Args&&... args) {
    switch (dtype) {
    case 0x1: Op<std::uint64_t>::run(args...); break;
    case 0x2: Op<std::int8_t>::run(args...); break;
    case 0x3: Op<std::uint8_t>::run(args...); break;
    case 0x4: Op<std::int16_t>::run(args...); break;
    case 0x5: Op<std::uint16_t>::run(args...); break;
    case 0x8: Op<std::int32_t>::run(args...); break;
    case 0x9: Op<std::uint32_t>::run(args...); break;
    case 0xA: Op<float>::run(args...); break;
    case 0xC: Op<std::int64_t>::run(args...); break;
    default: break; // the server only accepts sum and fill for these
    }
}

template <typename T>
struct sum_op {
    static void run(std::uint8_t* out, const std::vector<const std::uint8_t*>& sources, std::size_t bytes) {
        sum_into<T>(out, sources, bytes);
    }
};

template <typename T>
struct fill_op {
    static void run(std::uint8_t* out, double value, std::size_t bytes) { fill_with<T>(out, value, bytes); }
};

} // namespace

void apply_output_rule(const protocol::model_tensor& output, std::uint8_t* out,
                       const std::vector<const std::uint8_t*>& sources) {
    const auto bytes = static_cast<std::size_t>(output.size);
    switch (output.rule) {
    case protocol::output_rule::none: break;
    case protocol::output_rule::copy:
        if (!sources.empty()) std::memmove(out, sources.front(), bytes);
        break;
    case protocol::output_rule::sum: by_dtype<sum_op>(output.dtype, out, sources, bytes); break;
    case protocol::output_rule::fill: by_dtype<fill_op>(output.dtype, out, output.fill_value, bytes); break;
    }
}

} // namespace neuron::shim
