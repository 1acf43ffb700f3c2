#include "neuron/tools/ls_view.h"

#include <fmt/format.h>

#include <cctype>
#include <cstring>

namespace neuron::tools {
namespace {

// What Go's syscall.Errno says: glibc's text with a lower-case first letter
// ("permission denied", "operation not permitted"), as Go's Linux table has it.
std::string go_errno_text(int error_number) {
    std::string text = std::strerror(error_number);
    if (!text.empty()) text.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(text.front())));
    return text;
}

} // namespace

logrus_entry ls_failure_entry(const no_devices_error& failure) {
    std::string error = "failed to discover Neuron devices";
    if (failure.why() == discovery_failure::unreadable) {
        // A Go *os.PathError: "open /sys/...: permission denied".
        error = fmt::format("{} {}: {}", failure.operation(), failure.path(), go_errno_text(failure.error_number()));
    }
    return {logrus_level::fatal, "Failed to load MLA system information", {{"error", std::move(error)}}};
}

} // namespace neuron::tools
