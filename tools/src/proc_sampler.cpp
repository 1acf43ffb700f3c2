#include "proc_sampler.h"

#include "directory_entries.h"

#include <charconv>
#include <climits>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace neuron::tools {
namespace {

std::optional<std::uint32_t> number_in(std::string_view text) {
    std::uint32_t n = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return n;
}

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

system_sample read_system(const std::string& proc_root) {
    system_sample s;
    std::istringstream stat(read_all(proc_root + "/stat"));
    for (std::string line; std::getline(stat, line);) {
        std::istringstream words(line);
        std::string name;
        words >> name;
        if (name.starts_with("cpu")) {
            cpu_times t;
            words >> t.user >> t.nice >> t.system >> t.idle >> t.io_wait >> t.irq >> t.soft_irq;
            if (!words) continue;
            if (name == "cpu") {
                s.total = t;
            } else {
                s.per_cpu.push_back(t);
            }
        } else if (name == "ctxt") {
            words >> s.context_switches;
        }
    }
    std::map<std::string, std::uint64_t> kib;
    std::istringstream meminfo(read_all(proc_root + "/meminfo"));
    for (std::string line; std::getline(meminfo, line);) {
        std::istringstream words(line);
        std::string name;
        std::uint64_t value = 0;
        if (words >> name >> value) kib[name] = value;
    }
    if (kib.contains("MemTotal:") && kib.contains("MemAvailable:")) {
        s.memory_total_bytes = kib["MemTotal:"] * 1024;
        s.memory_used_bytes = (kib["MemTotal:"] - std::min(kib["MemTotal:"], kib["MemAvailable:"])) * 1024;
    }
    if (kib.contains("SwapTotal:") && kib.contains("SwapFree:")) {
        s.swap_total_bytes = kib["SwapTotal:"] * 1024;
        s.swap_used_bytes = (kib["SwapTotal:"] - std::min(kib["SwapTotal:"], kib["SwapFree:"])) * 1024;
    }
    return s;
}

std::string command_of(const std::string& proc_root, std::uint32_t pid) {
    auto words = read_all(proc_root + "/" + std::to_string(pid) + "/cmdline");
    while (!words.empty() && words.back() == '\0') words.pop_back();
    for (auto& c : words) {
        if (c == '\0') c = ' ';
    }
    return words;
}

std::optional<cpu_times> cpu_of(const std::string& proc_root, std::uint32_t pid) {
    const auto stat = read_all(proc_root + "/" + std::to_string(pid) + "/stat");
    // The command (field 2) may hold spaces and parentheses: fields resume after the last ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(stat.substr(close + 1));
    std::string skipped;
    for (int field = 3; field < 14; ++field) fields >> skipped; // state .. cmajflt
    cpu_times t;
    if (!(fields >> t.user >> t.system)) return std::nullopt;
    return t;
}

std::vector<device_user> device_users(const std::string& proc_root) {
    std::vector<device_user> users;
    for (const auto& name : directory_entries(proc_root)) {
        const auto pid = number_in(name);
        if (!pid) continue;
        const auto fd_dir = proc_root + "/" + name + "/fd";
        std::set<std::uint32_t> devices;
        for (const auto& fd : directory_entries(fd_dir)) {
            char target[PATH_MAX];
            const auto n = ::readlink((fd_dir + "/" + fd).c_str(), target, sizeof target - 1);
            if (n <= 0) continue;
            const std::string_view path(target, static_cast<std::size_t>(n));
            constexpr std::string_view prefix = "/dev/neuron";
            if (!path.starts_with(prefix)) continue;
            if (const auto device = number_in(path.substr(prefix.size()))) devices.insert(*device);
        }
        if (!devices.empty()) users.push_back({*pid, command_of(proc_root, *pid), {devices.begin(), devices.end()}});
    }
    return users;
}

} // namespace neuron::tools
