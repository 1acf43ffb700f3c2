#include "neuron/model/state/debug_event.h"

#include <array>
#include <string_view>
#include <utility>

namespace neuron::model {

std::size_t debug_dtype_size(std::string_view dtype) {
    // The dtype strings the AWS consumer accepts (nrt-api.md §2.4); the _x4
    // types pack four elements in four bytes.
    static constexpr std::array<std::pair<std::string_view, std::size_t>, 19> sizes{{
        {"int8", 1},     {"int16", 2},           {"int32", 4},           {"int64", 8},         {"uint8", 1},
        {"uint16", 2},   {"uint32", 4},          {"uint64", 8},          {"float16", 2},       {"float32", 4},
        {"bfloat16", 2}, {"float8e3m4", 1},      {"float8e4m3", 1},      {"float8e4m3fn", 1},  {"float8e5m2", 1},
        {"float32r", 4}, {"float4e2m1fn_x4", 4}, {"float8e4m3fn_x4", 4}, {"float8e5m2_x4", 4},
    }};
    for (const auto& [name, size] : sizes) {
        if (name == dtype) return size;
    }
    return 0;
}

} // namespace neuron::model
