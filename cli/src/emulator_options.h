#pragma once

#include "arguments.h"

#include "neuron/model/state/platform_config.h"
#include "neuron/recording/replay_plan.h"
#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/served_tree.h"

#include <optional>
#include <string>

namespace neuron::cli {

// The options `serve` and `run` share: which instance to model, which driver
// release's tree to show (or which recorded host to serve again), and how
// time runs.
struct emulator_options {
    model::platform_config config;
    const sysfs::driver_release* release = nullptr;
    std::uint32_t char_major = 0; // the character device major the tree shows
    bool allow_other = false;
    std::string replay_source;                    // --from
    std::optional<recording::replay_plan> replay; // with --from: the tree to serve
};

void add_emulator_options(argument_parser& parser);

// --control-mode: an octal permission mode such as 0600.
unsigned parse_mode(const std::string& text);
// Validates everything (instance, driver version, their combination, time
// mode, real-time factor, the recording) before anything starts. Throws
// usage_error (a recording that cannot be read or served among them) or
// invalid_argument_error naming the bad value.
emulator_options read_emulator_options(const argument_parser::result& options);

// The tree to serve: the recorded host's (taken from `e`, once), else the layout's.
sysfs::served_tree take_served_tree(emulator_options& e, const sysfs::layout& layout);

// With --from: a line saying what the model serves and what is shown as recorded.
std::string replay_summary(const emulator_options& e);

} // namespace neuron::cli
