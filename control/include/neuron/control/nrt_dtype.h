#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron::control {

// nrt_dtype_t as the current nrt.h numbers it (nrt-api.md §3.1).
struct dtype_info {
    std::uint32_t value;
    std::string_view name; // the name model files use: "float32"
    std::size_t element_size;
    bool arithmetic; // sum/fill rules can compute with it
};

std::optional<dtype_info> find_dtype(std::string_view name);
std::optional<dtype_info> find_dtype(std::uint32_t value);
std::string_view dtype_names(); // for error messages

} // namespace neuron::control
