#include "vendor_tools.h"

#include "ls_command.h"
#include "monitor_command.h"
#include "top_command.h"

namespace neuron::cli {

std::span<const vendor_tool> vendor_tools() {
    static constexpr std::array tools{
        vendor_tool{"neuron-ls", "ls", run_ls},
        vendor_tool{"neuron-monitor", "monitor", run_monitor},
        vendor_tool{"neuron-top", "top", run_top},
    };
    return tools;
}

const vendor_tool* vendor_tool_named(std::string_view argv0) {
    const auto slash = argv0.rfind('/');
    const auto name = slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1);
    for (const auto& tool : vendor_tools()) {
        if (tool.name == name) return &tool;
    }
    return nullptr;
}

} // namespace neuron::cli
