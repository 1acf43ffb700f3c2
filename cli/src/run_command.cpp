#include "run_command.h"

#include "emulator_options.h"
#include "signal_waiter.h"
#include "usage_error.h"
#include "vendor_tools.h"

#include "neuron/control/control_server.h"
#include "neuron/model/runtime/simulation.h"
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
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace neuron::cli {
namespace {

constexpr int exit_command_not_found = 127;
constexpr int exit_command_not_runnable = 126;

void driver_log(std::string_view message) { fmt::print(stderr, "neuron-emu: [kernel] neuron: {}\n", message); }

// The command's environment: the emulator's control socket, the vendor's
// tools first on PATH, and this build's libnrt.so.1 (bin/../lib) first on
// the library path if it is there.
std::vector<std::string> child_environment(const std::string& control_path, const std::string& tools_dir) {
    std::vector<std::string> env;
    std::string library_path;
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string_view entry = *e;
        if (entry.starts_with("NEURON_EMU_CONTROL=")) continue;
        if (entry.starts_with("LD_LIBRARY_PATH=")) {
            library_path = std::string(entry.substr(16));
            continue;
        }
        if (entry.starts_with("PATH=")) {
            path = std::string(entry.substr(5));
            continue;
        }
        env.emplace_back(entry);
    }
    env.push_back("NEURON_EMU_CONTROL=" + control_path);
    env.push_back(fmt::format("PATH={}:{}", tools_dir, path));
    std::error_code ignored;
    const auto shim_dir = std::filesystem::read_symlink("/proc/self/exe", ignored).parent_path().parent_path() / "lib";
    if (std::filesystem::exists(shim_dir / "libnrt.so.1", ignored)) {
        library_path = library_path.empty() ? shim_dir.string() : shim_dir.string() + ":" + library_path;
    }
    if (!library_path.empty()) env.push_back("LD_LIBRARY_PATH=" + library_path);
    return env;
}

// `name` as execvp would find it along the child's PATH (posix_spawnp would
// search the emulator's own, without the vendor's tools); itself when it
// names a path or is found nowhere (the spawn then fails with ENOENT).
std::string find_command(const std::string& name, const std::vector<std::string>& environment) {
    if (name.find('/') != std::string::npos) return name;
    std::string_view path;
    for (const auto& entry : environment) {
        if (entry.starts_with("PATH=")) path = std::string_view(entry).substr(5);
    }
    while (!path.empty()) {
        const auto colon = path.find(':');
        const auto dir = path.substr(0, colon);
        const auto candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        if (colon == std::string_view::npos) break;
        path.remove_prefix(colon + 1);
    }
    return name;
}

// Starts the command with default signal handling and an empty signal mask
// (the emulator blocks termination signals in all its own threads).
pid_t spawn(const std::vector<std::string>& command, const std::vector<std::string>& environment, int& error) {
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
    std::vector<char*> envp;
    for (const auto& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);
    pid_t pid = -1;
    const auto program = find_command(command.front(), environment);
    error = program.find('/') == std::string::npos
                ? ENOENT
                : posix_spawn(&pid, program.c_str(), nullptr, &attributes, argv.data(), envp.data());
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

// The vendor's tools, as links to this executable, at /opt/aws/neuron/bin;
// returns the directory to put on PATH. A host where that path cannot be
// placed (no /opt, a file in the way) still gets them on PATH.
std::string install_vendor_tools(const sysfs::scratch_directory& scratch) {
    const auto bin = scratch.make_directory("vendor-bin");
    const auto self = std::filesystem::read_symlink("/proc/self/exe");
    for (const auto& tool : vendor_tools()) {
        std::filesystem::create_symlink(self, std::filesystem::path(bin) / tool.name);
    }
    try {
        sysfs::install_private_directory(bin, std::string(vendor_bin_dir), scratch);
        return std::string(vendor_bin_dir);
    } catch (const sysfs::mount_error& e) {
        fmt::print(stderr, "neuron-emu: run: the vendor's tools are on PATH but not at {}: {}\n", vendor_bin_dir,
                   e.what());
        return bin;
    }
}

} // namespace

int run_run(std::span<const std::string> args) {
    const auto separator = std::find(args.begin(), args.end(), "--");
    const std::vector<std::string> command(separator == args.end() ? args.end() : separator + 1, args.end());
    argument_parser parser("run");
    add_emulator_options(parser);
    parser
        .option("control", "PATH", "control socket for libnrt and ctl (default: a private one, in NEURON_EMU_CONTROL)")
        .option("control-mode", "MODE", "permissions of the control socket", "0600");
    const auto options = parser.parse(std::span<const std::string>(args.begin(), separator));
    const auto control_mode = parse_mode(options.value("control-mode"));
    auto emulator = read_emulator_options(options);
    fmt::print(stderr, "{}", replay_summary(emulator));
    if (command.empty()) throw usage_error("run: give the command to run after '--'");

    if (std::string why; !sysfs::fuse_device_usable(why)) {
        throw sysfs::mount_error(fmt::format("run: {}; run needs FUSE to place the tree at the driver's paths", why));
    }
    // Before any thread starts: the signal mask and the mount namespace are
    // both inherited by the threads created afterwards.
    signal_waiter signals({SIGCHLD});
    const sysfs::layout layout(model::find_instance_type(emulator.config.instance), *emulator.release,
                               emulator.char_major);
    sysfs::enter_private_mount_namespace();
    const sysfs::scratch_directory scratch;
    const auto tree_mount = scratch.make_directory("tree");

    model::simulation sim(emulator.config);
    const auto control_path = options.has("control") ? options.value("control") : scratch.path() + "/control.sock";
    control::control_options control;
    control.path = control_path;
    control.mode = control_mode;
    control.driver_release = std::string(emulator.release->tag);
    control::control_server channel(sim, std::move(control));
    sysfs::sysfs_export tree(sim, layout, take_served_tree(emulator, layout), {tree_mount, "", emulator.allow_other},
                             driver_log);
    sysfs::install_private_host_view(tree_mount, scratch, layout);
    const auto tools_dir = install_vendor_tools(scratch);

    int error = 0;
    const pid_t child = spawn(command, child_environment(control_path, tools_dir), error);
    if (child < 0) {
        fmt::print(stderr, "neuron-emu: run: cannot run '{}': {}\n", command.front(), std::strerror(error));
        return error == ENOENT ? exit_command_not_found : exit_command_not_runnable;
    }
    const int status = wait_for(child, signals);
    tree.stop();
    channel.stop();
    return status;
}

} // namespace neuron::cli
