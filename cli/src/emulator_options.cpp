#include "emulator_options.h"

#include "usage_error.h"

#include "neuron/model/instance_catalogue.h"
#include "neuron/sysfs/layout.h"

#include <fmt/format.h>

namespace neuron::cli {

void add_emulator_options(argument_parser& parser) {
    parser.option("instance", "NAME", "instance type (see 'neuron-emu instances')", "trn1.2xlarge")
        .option("driver-version", "V", "driver release whose sysfs layout to show (2.7 ... 2.25)",
                std::string(sysfs::default_release().tag))
        .option("time", "MODE", "realtime (paced to the wall clock) or stepped (moves only when told)", "realtime")
        .option("rtf", "X",
                fmt::format("real-time factor: simulated seconds per wall-clock second ({} to {})",
                            model::min_real_time_factor, model::max_real_time_factor),
                "1")
        .option("seed", "N", "seed for serial numbers", "0")
        .flag("allow-other", "let users other than root use the tree (FUSE allow_other)");
}

unsigned parse_mode(const std::string& text) {
    unsigned mode = 0;
    if (text.empty() || text.size() > 4) throw usage_error(fmt::format("--control-mode '{}' is not an octal mode like 0600", text));
    for (const char c : text) {
        if (c < '0' || c > '7') throw usage_error(fmt::format("--control-mode '{}' is not an octal mode like 0600", text));
        mode = mode * 8 + static_cast<unsigned>(c - '0');
    }
    return mode;
}

emulator_options read_emulator_options(const argument_parser::result& options) {
    emulator_options out;
    out.config.instance = options.value("instance");
    out.config.seed = options.unsigned_value("seed");
    const auto& time = options.value("time");
    if (time == "realtime") {
        out.config.mode = model::time_mode::realtime;
    } else if (time == "stepped") {
        out.config.mode = model::time_mode::stepped;
    } else {
        throw usage_error(fmt::format("--time '{}' is not a time mode: use realtime or stepped", time));
    }
    out.config.real_time_factor = options.number_value("rtf");
    if (!(out.config.real_time_factor >= model::min_real_time_factor &&
          out.config.real_time_factor <= model::max_real_time_factor)) {
        throw usage_error(fmt::format("--rtf '{}' is out of range: the real-time factor must be between {} and {}",
                                      options.value("rtf"), model::min_real_time_factor,
                                      model::max_real_time_factor));
    }
    model::validate(out.config);
    out.release = &sysfs::find_release(options.value("driver-version"));
    // Refuses combinations the release did not support (Trn2 before 2.16 ...).
    const sysfs::layout layout(model::find_instance_type(out.config.instance), *out.release, 0);
    out.config.category_poll_period = layout.category_poll_period();
    out.allow_other = options.has("allow-other");
    return out;
}

} // namespace neuron::cli
