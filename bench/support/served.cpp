#include "support/served.h"

#include "neuron/sysfs/mount_point.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <sys/mount.h>
#include <sys/wait.h>

namespace neuron::bench {
namespace {

namespace fs = std::filesystem;

int entries(const char* dir) {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

} // namespace

scratch_dir::scratch_dir(const std::string& parent) {
    std::string name = parent + "/neuron-bench.XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp in " + parent + " failed");
    m_path = name;
}

scratch_dir::~scratch_dir() {
    for (const auto& p : sysfs::mounts_at_or_below(m_path)) ::umount2(p.c_str(), MNT_DETACH);
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
}

served::served(const std::string& emulator, serve_options options) {
    if (!options.tree_parent.empty()) m_tree_dir.emplace(options.tree_parent);
    m_tree = (m_tree_dir ? m_tree_dir->path() : m_dir.path()) + "/tree";
    m_control = options.control ? m_dir / "control.sock" : "none";
    std::vector<std::string> args{emulator,
                                  "serve",
                                  "--instance",
                                  options.instance,
                                  "--time",
                                  options.time,
                                  options.materialize ? "--materialize" : "--mount",
                                  m_tree,
                                  "--control",
                                  m_control};
    m_process.emplace(std::move(args), common::current_environment(), m_dir / "serve.stderr");
    const std::string ready = options.control ? "neuron-emu: control socket" : "neuron-emu: ";
    for (;;) {
        const auto line = m_process->read_line(std::chrono::seconds(30));
        if (!line)
            throw std::runtime_error(fmt::format("{} did not come up: {}", m_process->command(), m_process->err()));
        if (line->starts_with(ready)) break;
    }
}

served::~served() {
    if (m_process && m_process->running()) stop();
}

double served::rss_mib() const { return bench::rss_mib(m_process->pid()); }

double rss_mib(pid_t pid) {
    std::ifstream in(fmt::format("/proc/{}/status", pid));
    std::string key;
    while (in >> key) {
        if (key == "VmRSS:") {
            double kib = 0;
            in >> kib;
            return kib / 1024.0;
        }
        in.ignore(1 << 20, '\n');
    }
    return 0;
}

int served::stop() {
    m_process->signal(SIGTERM);
    auto status = m_process->wait(std::chrono::seconds(20));
    if (!status) {
        m_process->signal(SIGKILL);
        m_process->wait(std::chrono::seconds(20));
        return -1;
    }
    return WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
}

int mounts_below(const std::string& path) { return static_cast<int>(sysfs::mounts_at_or_below(path).size()); }
int open_fds() { return entries("/proc/self/fd"); }
int threads() { return entries("/proc/self/task"); }

int children() {
    int n = 0;
    for (const auto& task : fs::directory_iterator("/proc/self/task")) {
        std::ifstream in(task.path() / "children");
        int pid = 0;
        while (in >> pid) ++n;
    }
    return n;
}

} // namespace neuron::bench
