#include "vendor_log.h"

#include <chrono>
#include <unistd.h>

namespace neuron::cli {
namespace {

// logrus counts the terminal form's seconds from its package's
// initialisation, at the program's start: so does this, before main().
const auto program_start = std::chrono::steady_clock::now();

} // namespace

std::string vendor_log_line(const tools::logrus_entry& entry) {
    if (::isatty(STDERR_FILENO) != 0) {
        const auto since_start =
            std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - program_start);
        return tools::logrus_terminal_line(entry, since_start);
    }
    return tools::logrus_logfmt_line(entry, tools::go_rfc3339(std::chrono::system_clock::now()));
}

} // namespace neuron::cli
