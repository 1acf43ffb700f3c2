#include "emulator_options.h"

#include "usage_error.h"

#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/recording/commands.h"
#include "neuron/sysfs/char_major.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/tree_builder.h"

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
        .option("from", "RECORDING",
                "serve a recorded host (a file of 'neuron-emu record', or a tree's directory) with the model's "
                "semantics; --instance and --driver-version then default to the nearest catalogued tree")
        .flag("allow-other", "let users other than root use the tree (FUSE allow_other)");
}

unsigned parse_mode(const std::string& text) {
    unsigned mode = 0;
    if (text.empty() || text.size() > 4)
        throw usage_error(fmt::format("--control-mode '{}' is not an octal mode like 0600", text));
    for (const char c : text) {
        if (c < '0' || c > '7')
            throw usage_error(fmt::format("--control-mode '{}' is not an octal mode like 0600", text));
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
                                      options.value("rtf"), model::min_real_time_factor, model::max_real_time_factor));
    }
    out.char_major = sysfs::dynamic_char_major(sysfs::read_proc_devices());
    if (options.given("from")) {
        out.replay_source = options.value("from");
        recording::replay_request request;
        request.instance = options.given("instance") ? options.value("instance") : std::string();
        request.driver_version = options.given("driver-version") ? options.value("driver-version") : std::string();
        request.char_major = out.char_major;
        try {
            out.replay = recording::plan_replay(recording::load_recording(out.replay_source), request);
        } catch (const model::invalid_argument_error&) {
            throw; // an instance or release that does not exist, or not together
        } catch (const std::exception& e) {
            throw usage_error(fmt::format("--from: {}", e.what()));
        }
        out.config.instance = out.replay->instance;
        out.config.counter_script =
            std::make_shared<const std::vector<model::scripted_counter_value>>(std::move(out.replay->counter_script));
    }
    model::validate(out.config);
    out.release = out.replay ? out.replay->release : &sysfs::find_release(options.value("driver-version"));
    // Refuses combinations the release did not support (Trn2 before 2.16 ...).
    const sysfs::layout layout(model::find_instance_type(out.config.instance), *out.release, 0);
    out.config.category_poll_period = layout.category_poll_period();
    out.allow_other = options.has("allow-other");
    return out;
}

sysfs::served_tree take_served_tree(emulator_options& e, const sysfs::layout& layout) {
    if (!e.replay) return {sysfs::build_tree(layout), {}};
    auto served = std::move(e.replay->served);
    e.replay.reset();
    return served;
}

std::string replay_summary(const emulator_options& e) {
    if (!e.replay) return {};
    const auto& c = e.replay->counts;
    return fmt::format("neuron-emu: {}: {} files served by the model, {} as recorded ({} of them not in the "
                       "catalogued layout); {} of the layout's files not on that host, not served\n",
                       e.replay_source, c.modelled, c.as_recorded, c.host_only, c.layout_only);
}

} // namespace neuron::cli
