#include "serve_command.h"

#include "emulator_options.h"
#include "signal_waiter.h"
#include "usage_error.h"

#include "neuron/control/control_server.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/model/state/published_state.h"
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
#include <memory>

namespace neuron::cli {
namespace {

void driver_log(std::string_view message) { fmt::print(stderr, "neuron-emu: [kernel] neuron: {}\n", message); }

std::string describe(const emulator_options& e, const model::simulation& sim) {
    const auto& type = sim.published().instance();
    const auto time = e.config.mode == model::time_mode::stepped
                          ? std::string("stepped time")
                          : fmt::format("realtime x{}", e.config.real_time_factor);
    const auto replay = e.replay_source.empty() ? std::string() : fmt::format(" replaying {}", e.replay_source);
    return fmt::format("{} ({} x {}, {} NeuronCores) as driver {}{}, {}", type.name, type.device_count,
                       type.spec().device_name, type.total_cores(), e.release->tag, replay, time);
}

std::unique_ptr<control::control_server> start_control(model::simulation& sim, const std::string& path, unsigned mode,
                                                       const sysfs::driver_release& release) {
    if (path == "none") return nullptr;
    control::control_options options;
    options.path = path;
    options.mode = mode;
    options.driver_release = std::string(release.tag);
    return std::make_unique<control::control_server>(sim, std::move(options));
}

// The line after the serving line: where libnrt and ctl reach this emulator.
void announce(const control::control_server* channel) {
    if (channel != nullptr) {
        const bool default_path = channel->path() == control::default_control_path;
        fmt::print("neuron-emu: control socket {}{}\n", channel->path(),
                   default_path ? "" : fmt::format(" (set NEURON_EMU_CONTROL={} for libnrt)", channel->path()));
    }
    std::fflush(stdout);
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
        .flag("whole-tree",
              "with --mount: the whole tree as below /sys (DIR/devices/virtual/neuron_device/neuron0 ..., "
              "DIR/class/neuron_device/...)")
        .option("materialize", "DIR", "write the tree as plain files here instead (no poll, modes or writes)")
        .option("control", "PATH", "control socket for libnrt and ctl ('none': no control channel)",
                control::default_control_path)
        .option("control-mode", "MODE", "permissions of the control socket", "0600");
    const auto options = parser.parse(args);
    auto emulator = read_emulator_options(options);
    fmt::print(stderr, "{}", replay_summary(emulator));
    const auto control_path = options.value("control");
    const auto control_mode = parse_mode(options.value("control-mode"));
    if (options.has("mount") == options.has("materialize")) {
        throw usage_error("serve: give exactly one of --mount DIR and --materialize DIR");
    }
    if (options.has("whole-tree") && !options.has("mount"))
        throw usage_error("serve: --whole-tree goes with --mount DIR");

    // Before any thread starts, so that every thread inherits the mask.
    signal_waiter signals;
    const sysfs::layout layout(model::find_instance_type(emulator.config.instance), *emulator.release,
                               emulator.char_major);

    if (options.has("materialize")) {
        const auto& dir = options.value("materialize");
        model::simulation sim(emulator.config);
        const auto channel = start_control(sim, control_path, control_mode, *emulator.release);
        sysfs::materializer tree(sim.published(), layout, take_served_tree(emulator, layout), dir);
        fmt::print("neuron-emu: materializing {} at {} (plain files, refreshed every {} ms)\n", describe(emulator, sim),
                   tree.directory(), sysfs::materializer::refresh_period.count());
        announce(channel.get());
        signals.wait();
        tree.stop();
        return 0;
    }

    if (std::string why; !sysfs::fuse_device_usable(why)) {
        throw sysfs::mount_error(why + "; --materialize DIR writes the tree as plain files instead");
    }
    const sysfs::mount_point mountpoint(options.value("mount"));
    model::simulation sim(emulator.config);
    const auto channel = start_control(sim, control_path, control_mode, *emulator.release);
    sysfs::sysfs_export tree(sim, layout, take_served_tree(emulator, layout),
                             {mountpoint.path(),
                              options.has("whole-tree") ? std::string() : std::string(sysfs::devices_path),
                              emulator.allow_other},
                             driver_log);
    fmt::print("neuron-emu: serving {} at {}\n", describe(emulator, sim), mountpoint.path());
    announce(channel.get());
    const int status = wait_for_stop(signals, tree.ended_fd(), mountpoint.path());
    tree.stop();
    return status;
}

} // namespace neuron::cli
