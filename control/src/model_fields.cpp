#include "model_fields.h"

#include "neuron/common/printable.h"
#include "neuron/model/state/debug_event.h"
#include "neuron/protocol/messages.h"
#include "neuron/runtime_api/debug_limits.h"

#include <fmt/format.h>

#include <cfloat>
#include <cmath>
#include <optional>

namespace neuron::control {
namespace {

constexpr std::uint64_t max_print_bytes = runtime_api::max_debug_tensor_bytes;
constexpr std::size_t max_prefix = 511;

// The values a fill may hold, for an element type.
struct fill_range {
    double lowest;
    double highest;
    bool whole; // whole numbers only
};

// 64-bit integers: the value travels as a double and is rounded with llround,
// so only the integers a double holds exactly (to 2^53) arrive as written.
constexpr double max_exact_integer = 9007199254740992.0; // 2^53

fill_range integer_range(std::size_t bytes, bool is_signed) {
    if (bytes >= 8) return {is_signed ? -max_exact_integer : 0, max_exact_integer, true};
    const double span = std::ldexp(1.0, static_cast<int>(bytes * 8));
    return is_signed ? fill_range{-span / 2, span / 2 - 1, true} : fill_range{0, span - 1, true};
}

// The range of a fill for a tensor of `dtype` (a model-file or debug-stream
// dtype name); nothing when the dtype holds no numbers we write.
std::optional<fill_range> fill_range_of(std::string_view dtype, std::size_t element_size) {
    if (dtype == "float32" || dtype == "float32r") return fill_range{-FLT_MAX, FLT_MAX, false};
    if (dtype == "float16") return fill_range{-65504.0, 65504.0, false};
    if (dtype == "bfloat16") return fill_range{-0x1.fep127, 0x1.fep127, false};
    if (dtype.starts_with("uint")) return integer_range(element_size, false);
    if (dtype.starts_with("int")) return integer_range(element_size, true);
    return std::nullopt;
}

} // namespace

std::string quoted(std::string_view text) { return common::printable(text, 200); }

std::vector<std::uint64_t> read_shape(const common::yaml_fields& fields, const YAML::Node& node) {
    fields.require_sequence(node, "a shape");
    if (node.size() == 0 || node.size() > 8) fields.fail(node, "a shape needs 1 to 8 dimensions");
    std::vector<std::uint64_t> shape;
    for (const auto& d : node) {
        // nrt_tensor_info's shape holds 32-bit dimensions.
        const auto n = fields.unsigned_number(d, "a dimension", UINT32_MAX);
        if (n == 0) fields.fail(d, "a dimension must be at least 1");
        shape.push_back(n);
    }
    return shape;
}

double read_fill_value(const common::yaml_fields& fields, const YAML::Node& node, std::string_view what,
                       std::string_view dtype, std::size_t element_size) {
    const auto value = fields.number(node, what);
    const auto range = fill_range_of(dtype, element_size);
    if (!range) {
        // The 8-bit float types take the byte each element holds.
        if (value < 0 || value > 255 || std::trunc(value) != value) {
            fields.fail(node, fmt::format("a {} fill is the byte each element holds, a whole number from 0 to 255, "
                                          "not {}",
                                          dtype, quoted(node.Scalar())));
        }
        return value;
    }
    if (range->whole && std::trunc(value) != value) {
        fields.fail(node, fmt::format("a {} fill must be a whole number, not {}", dtype, quoted(node.Scalar())));
    }
    if (value < range->lowest || value > range->highest) {
        const auto bound = [&](double v) { return range->whole ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v); };
        fields.fail(node, fmt::format("a {} fill must be from {} to {}, not {}", dtype, bound(range->lowest),
                                      bound(range->highest), quoted(node.Scalar())));
    }
    return value;
}

model::device_print read_print(const common::yaml_fields& fields, const YAML::Node& node) {
    model::device_print p;
    p.prefix = fields.text(fields.required(node, "prefix", "a print"), "prefix");
    if (p.prefix.size() > max_prefix) fields.fail(node["prefix"], "a prefix has at most 511 characters");
    if (const auto dtype = node["dtype"]) {
        p.dtype = fields.text(dtype, "dtype");
        if (model::debug_dtype_size(p.dtype) == 0) {
            fields.fail(dtype, fmt::format("'{}' is not a debug-stream dtype", quoted(p.dtype)));
        }
    }
    if (const auto shape = node["shape"]) p.shape = read_shape(fields, shape);
    std::uint64_t bytes = model::debug_dtype_size(p.dtype);
    for (const auto d : p.shape) {
        if (bytes > max_print_bytes / d) fields.fail(node, "a printed tensor has at most 1 MiB");
        bytes *= d;
    }
    if (const auto pipe = node["pipe"]) p.pipe = static_cast<std::uint32_t>(fields.unsigned_number(pipe, "pipe", 1));
    if (const auto fill = node["fill"]) {
        const auto text = fields.text(fill, "fill");
        if (text == "iota") {
            p.fill = model::print_fill::iota;
        } else if (text == "execution") {
            p.fill = model::print_fill::execution;
        } else {
            p.fill = model::print_fill::value;
            p.value = read_fill_value(fields, fill, "fill (iota, execution or a number)", p.dtype,
                                      model::debug_dtype_size(p.dtype));
        }
    }
    return p;
}

} // namespace neuron::control
