#pragma once

// One log entry as a Go program using logrus (github.com/sirupsen/logrus)
// with its default TextFormatter prints it, which is how the vendor's Go
// tools (neuron-ls) report their errors on stderr. Two forms, chosen by
// whether the logger's output is a terminal:
//
//   not a terminal (logfmt):
//     time="2026-11-28T15:40:00Z" level=fatal msg="Failed to ..." error="..."
//   a terminal (coloured, the level cut to four letters, the seconds since
//   the program started, the message padded to 44 characters):
//     \x1b[31mFATA\x1b[0m[0000] Failed to ...<pad> \x1b[31merror\x1b[0m="..."
//
// Fields follow in key order; a value is quoted as Go's %q quotes it unless
// it holds only letters, digits and -._/@^+ (an empty value is not quoted).

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neuron::tools {

enum class logrus_level { panic, fatal, error, warning, info, debug, trace };

struct logrus_entry {
    logrus_level level = logrus_level::info;
    std::string message;
    // Key and value; printed sorted by key. Keys other than time, level and msg.
    std::vector<std::pair<std::string, std::string>> fields;
};

// The logfmt form with its newline; `time` as go_rfc3339 gives it.
std::string logrus_logfmt_line(const logrus_entry& entry, std::string_view time);

// The terminal form with its newline; `since_start` is the time since the program started.
std::string logrus_terminal_line(const logrus_entry& entry, std::chrono::seconds since_start);

// `when` in the local time zone (TZ, else /etc/localtime) as Go's time.RFC3339
// layout prints it: "2026-11-28T15:40:00Z" at UTC, "2026-11-28T16:40:00+01:00" elsewhere.
std::string go_rfc3339(std::chrono::system_clock::time_point when);

// `text` as Go's %q verb prints a string: in double quotes, with \" \\ \n \t
// ... and \xNN, \uNNNN escapes for what Go does not count as printable.
std::string go_quoted(std::string_view text);

} // namespace neuron::tools
