// What the vendor's tools read from others (tools/): a neuron-monitor
// configuration a user hands `neuron-emu monitor -c`, and the status
// document an emulator answers. The first byte chooses: even, the rest is a
// configuration for parse_monitor_config, where monitor_config_error is the
// expected refusal; odd, a status document for parse_status, where
// std::runtime_error is. Anything else escaping, a crash, a hang or a
// blow-up of memory is a finding, and so is a configuration that reads with
// a period out of its bounds or a tag filter longer than the limit.
// Seeds: corpus/tool_inputs/.

#include "emulator_sampler.h"
#include "neuron/tools/monitor_config.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

void check_period(std::uint64_t ns) {
    if (ns < neuron::tools::min_monitor_period_ns || ns > neuron::tools::max_monitor_period_ns) {
        std::fprintf(stderr, "tool_inputs_fuzzer: a period of %llu ns was accepted\n",
                     static_cast<unsigned long long>(ns));
        std::abort();
    }
}

void configuration(std::string_view text) {
    using namespace neuron::tools;
    monitor_config config;
    try {
        config = parse_monitor_config(text, "fuzz.json");
    } catch (const monitor_config_error&) {
        return;
    }
    check_period(config.period_ns);
    for (const auto& selection : config.neuron_runtimes) {
        if (selection.tag_filter.size() > max_tag_filter_length) {
            std::fprintf(stderr, "tool_inputs_fuzzer: a tag filter of %zu characters was accepted\n",
                         selection.tag_filter.size());
            std::abort();
        }
        for (const auto& metric : selection.metrics) check_period(metric.period_ns);
        (void)selection.matches("a-tag");
    }
    for (const auto& metric : config.system_metrics) check_period(metric.period_ns);
}

void status_document(const std::string& text) {
    try {
        (void)neuron::tools::parse_status(text);
    } catch (const std::runtime_error&) {}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (data[0] % 2 == 0) {
        configuration(text);
    } else {
        status_document(text);
    }
    return 0;
}
