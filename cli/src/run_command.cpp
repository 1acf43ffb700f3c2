#include "run_command.h"

#include "emulator_options.h"
#include "signal_waiter.h"
#include "usage_error.h"

#include "neuron/model/simulation.h"
#include "neuron/sysfs/char_major.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/fuse_server.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/private_host_view.h"
#include "neuron/sysfs/sysfs_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace neuron::cli {
namespace {

constexpr int exit_command_not_found = 127;
constexpr int exit_command_not_runnable = 126;

void driver_log(std::string_view message) { fmt::print(stderr, "neuron-emu: [kernel] neuron: {}\n", message); }

// Starts the command with default signal handling and an empty signal mask
// (the emulator blocks termination signals in all its own threads).
pid_t spawn(const std::vector<std::string>& command, int& error) {
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigset_t defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE}) sigaddset(&defaults, s);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> argv;
    for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    error = posix_spawnp(&pid, argv[0], nullptr, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    return error == 0 ? pid : -1;
}

// Waits for the child, passing termination signals on to it; returns its
// exit status as a shell would report it.
int wait_for(pid_t child, signal_waiter& signals) {
    for (;;) {
        const int signal = signals.wait();
        if (signal != SIGCHLD) {
            ::kill(child, signal);
            continue;
        }
        int status = 0;
        const pid_t done = ::waitpid(child, &status, WNOHANG);
        if (done != child) continue;
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    }
}

} // namespace

int run_run(std::span<const std::string> args) {
    const auto separator = std::find(args.begin(), args.end(), "--");
    const std::vector<std::string> command(separator == args.end() ? args.end() : separator + 1, args.end());
    argument_parser parser("run");
    add_emulator_options(parser);
    const auto options = parser.parse(std::span<const std::string>(args.begin(), separator));
    const auto emulator = read_emulator_options(options);
    if (command.empty()) throw usage_error("run: give the command to run after '--'");

    if (std::string why; !sysfs::fuse_device_usable(why)) {
        throw sysfs::mount_error(fmt::format("run: {}; run needs FUSE to place the tree at the driver's paths", why));
    }
    // Before any thread starts: the signal mask and the mount namespace are
    // both inherited by the threads created afterwards.
    signal_waiter signals({SIGCHLD});
    const sysfs::layout layout(model::find_instance_type(emulator.config.instance), *emulator.release,
                               sysfs::dynamic_char_major(sysfs::read_proc_devices()));
    sysfs::enter_private_mount_namespace();
    const sysfs::scratch_directory scratch;
    const auto tree_mount = scratch.make_directory("tree");

    model::simulation sim(emulator.config);
    sysfs::sysfs_export tree(sim, layout, {tree_mount, "", emulator.allow_other}, driver_log);
    sysfs::install_private_host_view(tree_mount, scratch, layout);

    int error = 0;
    const pid_t child = spawn(command, error);
    if (child < 0) {
        fmt::print(stderr, "neuron-emu: run: cannot run '{}': {}\n", command.front(), std::strerror(error));
        return error == ENOENT ? exit_command_not_found : exit_command_not_runnable;
    }
    const int status = wait_for(child, signals);
    tree.stop();
    return status;
}

} // namespace neuron::cli
