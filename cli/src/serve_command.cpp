#include "serve_command.h"

#include "emulator_options.h"
#include "signal_waiter.h"
#include "usage_error.h"

#include "neuron/model/published_state.h"
#include "neuron/model/simulation.h"
#include "neuron/sysfs/char_major.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/fuse_server.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/materializer.h"
#include "neuron/sysfs/mount_point.h"
#include "neuron/sysfs/sysfs_export.h"
#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

#include <cstdio>

namespace neuron::cli {
namespace {

void driver_log(std::string_view message) { fmt::print(stderr, "neuron-emu: [kernel] neuron: {}\n", message); }

std::string describe(const emulator_options& e, const model::simulation& sim) {
    const auto& type = sim.published().instance();
    const auto time = e.config.mode == model::time_mode::stepped
                          ? std::string("stepped time")
                          : fmt::format("realtime x{}", e.config.real_time_factor);
    return fmt::format("{} ({} x {}, {} NeuronCores) as driver {}, {}", type.name, type.device_count,
                       type.spec().device_name, type.total_cores(), e.release->tag, time);
}

int wait_for_stop(signal_waiter& signals, int ended_fd, std::string_view where) {
    const int signal = signals.wait(ended_fd);
    if (signal == 0) {
        fmt::print(stderr, "neuron-emu: the tree at {} was unmounted from outside; stopping\n", where);
        return 1;
    }
    return 0;
}

} // namespace

int run_serve(std::span<const std::string> args) {
    argument_parser parser("serve");
    add_emulator_options(parser);
    parser.option("mount", "DIR", "mount the tree here (DIR/neuron0 ...)")
        .option("materialize", "DIR", "write the tree as plain files here instead (no poll, modes or writes)");
    const auto options = parser.parse(args);
    const auto emulator = read_emulator_options(options);
    if (options.has("mount") == options.has("materialize")) {
        throw usage_error("serve: give exactly one of --mount DIR and --materialize DIR");
    }

    // Before any thread starts, so that every thread inherits the mask.
    signal_waiter signals;
    const sysfs::layout layout(model::find_instance_type(emulator.config.instance), *emulator.release,
                               sysfs::dynamic_char_major(sysfs::read_proc_devices()));

    if (options.has("materialize")) {
        const auto& dir = options.value("materialize");
        model::simulation sim(emulator.config);
        sysfs::materializer tree(sim.published(), layout, dir);
        fmt::print("neuron-emu: materializing {} at {} (plain files, refreshed every {} ms)\n",
                   describe(emulator, sim), tree.directory(), sysfs::materializer::refresh_period.count());
        std::fflush(stdout);
        signals.wait();
        tree.stop();
        return 0;
    }

    if (std::string why; !sysfs::fuse_device_usable(why)) {
        throw sysfs::mount_error(why + "; --materialize DIR writes the tree as plain files instead");
    }
    const sysfs::mount_point mountpoint(options.value("mount"));
    model::simulation sim(emulator.config);
    sysfs::sysfs_export tree(sim, layout,
                             {mountpoint.path(), std::string(sysfs::devices_path), emulator.allow_other}, driver_log);
    fmt::print("neuron-emu: serving {} at {}\n", describe(emulator, sim), mountpoint.path());
    std::fflush(stdout);
    const int status = wait_for_stop(signals, tree.ended_fd(), mountpoint.path());
    tree.stop();
    return status;
}

} // namespace neuron::cli
