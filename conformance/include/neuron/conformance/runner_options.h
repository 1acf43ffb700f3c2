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
    bool schema = false;                 // --schema: print the scenario format's JSON Schema
    bool model_target = true;            // --target model (the default)
    std::string sysfs_root;              // --sysfs-root PATH
    std::string control;                 // --control PATH: the served tree's emulator
    std::optional<std::string> instance; // --instance NAME
    std::optional<std::string> driver_version;
    bool list = false;
    std::string filter;
    std::vector<std::string> tags;
    std::string junit;
    bool keep_going = false;
    std::optional<nanoseconds> timeout;
    std::string emulator;           // --emulator PATH (empty: beside the runner)
    unsigned jobs = 1;              // -j N: scenarios at once
    unsigned shard = 0, shards = 1; // --shard I/N (shard 0..N-1 here; I is 1-based on the command line)
    bool matrix = false;            // --matrix: every instance type x every release (model target)
    bool quiet = false;             // --quiet: only failures and the summary
    std::vector<std::string> paths; // scenario files and folders (empty: the default folder)
};

runner_options parse_runner_options(std::span<const std::string> args);
std::string runner_usage();

} // namespace neuron::conformance
