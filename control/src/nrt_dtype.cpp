#include "neuron/control/nrt_dtype.h"

#include <array>

namespace neuron::control {
namespace {

constexpr std::array dtypes{
    dtype_info{0x1, "uint64", 8, true},      dtype_info{0x2, "int8", 1, true},
    dtype_info{0x3, "uint8", 1, true},       dtype_info{0x4, "int16", 2, true},
    dtype_info{0x5, "uint16", 2, true},      dtype_info{0x6, "bfloat16", 2, false},
    dtype_info{0x7, "float16", 2, false},    dtype_info{0x8, "int32", 4, true},
    dtype_info{0x9, "uint32", 4, true},      dtype_info{0xA, "float32", 4, true},
    dtype_info{0xB, "float32r", 4, false},   dtype_info{0xC, "int64", 8, true},
    dtype_info{0xD, "float8e3m4", 1, false}, dtype_info{0xE, "float8e4m3", 1, false},
    dtype_info{0xF, "float8e5m2", 1, false},
};

} // namespace

std::optional<dtype_info> find_dtype(std::string_view name) {
    for (const auto& d : dtypes) {
        if (d.name == name) return d;
    }
    return std::nullopt;
}

std::optional<dtype_info> find_dtype(std::uint32_t value) {
    for (const auto& d : dtypes) {
        if (d.value == value) return d;
    }
    return std::nullopt;
}

std::string_view dtype_names() {
    return "uint64, int8, uint8, int16, uint16, bfloat16, float16, int32, uint32, float32, float32r, int64, "
           "float8e3m4, float8e4m3, float8e5m2";
}

} // namespace neuron::control
