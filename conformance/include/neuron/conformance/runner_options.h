#pragma once

#include "neuron/conformance/duration.h"

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace neuron::conformance {

// Bad command-line input: exit status 2 with the message.
class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct runner_options {
    bool help = false;
    bool model_target = true;            // --target model (the default)
    std::string sysfs_root;              // --sysfs-root PATH
    std::optional<std::string> instance; // --instance NAME
    std::optional<std::string> driver_version;
    bool list = false;
    std::string filter;
    std::vector<std::string> tags;
    std::string junit;
    bool keep_going = false;
    std::optional<nanoseconds> timeout;
    std::string emulator;             // --emulator PATH (empty: beside the runner)
    std::vector<std::string> paths;   // scenario files and folders (empty: the default folder)
};

runner_options parse_runner_options(std::span<const std::string> args);
std::string runner_usage();

} // namespace neuron::conformance
