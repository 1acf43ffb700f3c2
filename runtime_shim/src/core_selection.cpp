#include "core_selection.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace neuron::shim {
namespace {

std::uint32_t number(std::string_view text, const char* variable) {
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        throw std::invalid_argument(std::string(variable) + "='" + std::string(text) + "' is not a number");
    }
    return value;
}

std::optional<std::string> variable(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

} // namespace

void parse_visible_cores(const std::string& text, std::uint32_t& first, std::uint32_t& count) {
    // Ranges are checked by their ends, never expanded: "0-4294967295" is
    // one comparison, not four billion cores.
    std::uint64_t low_end = 0;
    std::uint64_t high_end = 0;
    bool any = false;
    std::string_view rest = text;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const auto item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (item.empty()) throw std::invalid_argument("NEURON_RT_VISIBLE_CORES='" + text + "' has an empty item");
        const auto dash = item.find('-');
        const auto low = number(item.substr(0, dash), "NEURON_RT_VISIBLE_CORES");
        const auto high =
            dash == std::string_view::npos ? low : number(item.substr(dash + 1), "NEURON_RT_VISIBLE_CORES");
        if (high < low) throw std::invalid_argument("NEURON_RT_VISIBLE_CORES='" + text + "' has a decreasing range");
        if (any && low != high_end + 1) {
            throw std::invalid_argument("NEURON_RT_VISIBLE_CORES='" + text +
                                        "' must name contiguous, increasing cores (e.g. 3-6 or 3-5,6)");
        }
        if (!any) low_end = low;
        high_end = high;
        any = true;
    }
    if (!any) throw std::invalid_argument("NEURON_RT_VISIBLE_CORES is empty");
    if (high_end - low_end + 1 > UINT32_MAX) {
        throw std::invalid_argument("NEURON_RT_VISIBLE_CORES='" + text + "' names more cores than any instance has");
    }
    first = static_cast<std::uint32_t>(low_end);
    count = static_cast<std::uint32_t>(high_end - low_end + 1);
}

core_request read_core_request() {
    core_request r;
    const auto lnc = variable("NEURON_LOGICAL_NC_CONFIG") ? variable("NEURON_LOGICAL_NC_CONFIG")
                                                          : variable("NEURON_RT_VIRTUAL_CORE_SIZE");
    if (lnc) {
        r.lnc = number(*lnc, "NEURON_LOGICAL_NC_CONFIG");
        if (*r.lnc != 1 && *r.lnc != 2)
            throw std::invalid_argument("NEURON_LOGICAL_NC_CONFIG must be 1 or 2, not " + *lnc);
    }
    if (const auto visible = variable("NEURON_RT_VISIBLE_CORES")) {
        r.selection = protocol::core_selection::range;
        parse_visible_cores(*visible, r.first, r.count);
    } else if (const auto num = variable("NEURON_RT_NUM_CORES")) {
        r.count = number(*num, "NEURON_RT_NUM_CORES");
        r.selection = r.count == 0 ? protocol::core_selection::all_free : protocol::core_selection::count;
    }
    if (const auto size = variable("NEURON_RT_DEBUG_STREAM_BUFFER_SIZE")) {
        r.debug_stream_capacity = number(*size, "NEURON_RT_DEBUG_STREAM_BUFFER_SIZE");
        const auto c = r.debug_stream_capacity;
        if (c == 0 || (c & (c - 1)) != 0) {
            throw std::invalid_argument("NEURON_RT_DEBUG_STREAM_BUFFER_SIZE=" + *size + " must be a power of two");
        }
    }
    return r;
}

} // namespace neuron::shim
