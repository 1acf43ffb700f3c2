#include "output_rules.h"

#include "element_types.h"

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
            total = wrapping_add(total, v);
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
    case protocol::output_rule::sum: with_element_type<sum_op>(output.dtype, out, sources, bytes); break;
    case protocol::output_rule::fill: with_element_type<fill_op>(output.dtype, out, output.fill_value, bytes); break;
    }
}

} // namespace neuron::shim
