#include "debug_emission.h"

#include "neuron/model/program/debug_tensor_data.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/spec/errors.h"
#include "neuron/runtime_api/debug_limits.h"

#include <fmt/format.h>

namespace neuron::model {
namespace {

constexpr std::uint32_t max_events = 10'000'000;
// Tensor bytes one request may create (count x tensor size): the kernel
// thread builds them all before it serves anything else.
constexpr std::uint64_t max_request_bytes = std::uint64_t{1} << 30;
constexpr std::uint64_t max_tensor_bytes = runtime_api::max_debug_tensor_bytes;
constexpr std::size_t max_prefix = 511;

// Throws for a request out of bounds.
void check(const debug_emission& request) {
    if (request.count == 0 || request.count > max_events) {
        throw invalid_argument_error(fmt::format("emit-debug: count {} must be 1..{}", request.count, max_events));
    }
    const auto element = debug_dtype_size(request.dtype);
    if (element == 0)
        throw invalid_argument_error(fmt::format("emit-debug: '{}' is not a debug-stream dtype", request.dtype));
    if (request.shape.empty() || request.shape.size() > 8)
        throw invalid_argument_error("emit-debug: a shape needs 1 to 8 dimensions");
    std::uint64_t elements = 1;
    for (const auto d : request.shape) {
        if (d == 0 || elements > max_tensor_bytes / element / d) {
            throw invalid_argument_error("emit-debug: dimensions must be at least 1 and the tensor at most 1 MiB");
        }
        elements *= d;
    }
    if (elements * element * request.count > max_request_bytes) {
        throw invalid_argument_error(
            fmt::format("emit-debug: {} events of {} bytes each is more than the {} bytes one request may emit",
                        request.count, elements * element, max_request_bytes));
    }
    if (request.prefix.size() > max_prefix)
        throw invalid_argument_error("emit-debug: a prefix has at most 511 characters");
    if (request.pipe > 1) {
        throw invalid_argument_error(
            fmt::format("emit-debug: pipe {} is neither 0 (stdout) nor 1 (stderr)", request.pipe));
    }
}

} // namespace

debug_emission_result emit_debug_events(platform& p, const debug_emission& request) {
    check(request);
    const auto source = p.sessions().physical_of(request.logical_core);
    device_print print;
    print.prefix = request.prefix;
    print.dtype = request.dtype;
    print.shape = request.shape;
    print.pipe = request.pipe;
    print.fill = print_fill::value;
    debug_emission_result result;
    for (std::uint32_t i = 0; i < request.count; ++i) {
        switch (p.debug_events().emit(print_event(print, source.device, source.core, static_cast<double>(i)))) {
        case debug_delivery::accepted: ++result.accepted; break;
        case debug_delivery::dropped: ++result.dropped; break;
        case debug_delivery::discarded: ++result.discarded; break;
        }
    }
    return result;
}

} // namespace neuron::model
