#pragma once

#include "arguments.h"

#include "neuron/model/platform_config.h"
#include "neuron/sysfs/driver_release.h"

namespace neuron::cli {

// The options `serve` and `run` share: which instance to model, which driver
// release's tree to show, and how time runs.
struct emulator_options {
    model::platform_config config;
    const sysfs::driver_release* release = nullptr;
    bool allow_other = false;
};

void add_emulator_options(argument_parser& parser);

// --control-mode: an octal permission mode such as 0600.
unsigned parse_mode(const std::string& text);
// Validates everything (instance, driver version, their combination, time
// mode, real-time factor) before anything starts. Throws usage_error or
// invalid_argument_error naming the bad value.
emulator_options read_emulator_options(const argument_parser::result& options);

} // namespace neuron::cli
