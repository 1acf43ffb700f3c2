// Figure 12: recordings at scale. A trn2.48xlarge tree is served and
// recorded as a user records a host (`neuron-conformance record --samples N
// --interval 10ms`: 20 496 entries, 13 248 counters), at two sizes, the
// larger with four times the samples; its counters are then made to move in
// every sample (each a multiple of the sample's number), so that a replay
// has a change per sampled value. `diff` of each against itself and `serve
// --from` of each until it serves are run as a user runs them, timed (wall
// and CPU, the least of three runs) with their peak RSS. Judged: the larger
// costs at most 1.25 times its size's ratio to the smaller's (time and
// memory in proportion to the file), and each byte of file at most 8 bytes
// of memory.

#include "figures.h"
#include "support/measure.h"
#include "support/served.h"

#include "neuron/common/child_process.h"
#include "neuron/common/regular_file.h"
#include "neuron/recording/recording_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace neuron::bench {
namespace {

using namespace std::chrono_literals;

struct cost {
    double wall_s = 0;
    double cpu_s = 0;
    double peak_mib = 0;
};

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

// A command run to its end, its output discarded: wall and CPU time, peak RSS.
cost run_to_end(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    const auto start = clock::now();
    pid_t pid = 0;
    const int error = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw std::runtime_error(fmt::format("cannot run {}", args[0]));
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    cost c;
    c.wall_s = std::chrono::duration<double>(clock::now() - start).count();
    c.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    c.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
    return c;
}

// A field of /proc/PID/status, in kB.
double status_kb(pid_t pid, const std::string& field) {
    std::ifstream in(fmt::format("/proc/{}/status", pid));
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with(field + ":")) return std::stod(line.substr(field.size() + 1));
    }
    return 0;
}

double cpu_seconds(pid_t pid) {
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14 || i == 15) ticks += std::stod(field);
    }
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// `serve --from` until it says it serves: then its time and peak RSS.
cost serve_from(const context& c, const std::string& recording, const scratch_dir& dir) {
    const auto start = clock::now();
    common::child_process serve({c.emulator, "serve", "--from", recording, "--mount", dir / "replayed", "--time",
                                 "stepped", "--control", "none"},
                                common::current_environment(), dir / "replay.stderr");
    for (;;) {
        const auto line = serve.read_line(600s);
        if (!line) throw std::runtime_error(fmt::format("serve --from did not serve: {}", serve.err()));
        if (line->starts_with("neuron-emu: serving")) break;
    }
    cost out;
    out.wall_s = std::chrono::duration<double>(clock::now() - start).count();
    out.cpu_s = cpu_seconds(serve.pid());
    out.peak_mib = status_kb(serve.pid(), "VmHWM") / 1024.0;
    serve.signal(SIGTERM);
    serve.wait(30s);
    return out;
}

// The recording with every sampled counter that reads as a number moving:
// the n-th sample's value of counter i is n * (i % 7 + 1).
void make_counters_move(const std::string& path) {
    auto r = recording::read_recording(common::read_regular_file(path, std::size_t{1} << 28), path);
    for (std::size_t n = 0; n < r.samples.size(); ++n) {
        recording::sample_values moved;
        const auto& values = r.samples[n].values;
        for (std::size_t i = 0; i < values.size(); ++i) {
            const bool number = !values[i].empty() && values[i].find_first_not_of("0123456789\n") == std::string::npos;
            moved.push_back(number ? std::to_string((n + 1) * (i % 7 + 1)) + "\n" : std::string(values[i]));
        }
        r.samples[n].values = std::move(moved);
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << recording::write_recording(r);
}

template <typename Run>
cost least(int runs, Run&& run) {
    cost best = run();
    for (int i = 1; i < runs; ++i) {
        const auto c = run();
        best.wall_s = std::min(best.wall_s, c.wall_s);
        best.cpu_s = std::min(best.cpu_s, c.cpu_s);
        best.peak_mib = std::min(best.peak_mib, c.peak_mib);
    }
    return best;
}

struct size_point {
    double bytes = 0;
    cost diff, serve;
};

size_point measure(const context& c, const served& tree, const scratch_dir& dir, std::uint32_t samples) {
    const auto file = dir / fmt::format("host-{}.yaml", samples);
    const auto record = run_to_end({c.conformance, "record", "--sysfs-root", tree.tree(), "-o", file, "--samples",
                                    std::to_string(samples), "--interval", "10ms"});
    (void)record;
    make_counters_move(file);
    size_point p;
    p.bytes = static_cast<double>(std::filesystem::file_size(file));
    // The least of three runs: this machine's other load only adds.
    p.diff = least(3, [&] { return run_to_end({c.conformance, "diff", file, file}); });
    p.serve = least(3, [&] { return serve_from(c, file, dir); });
    return p;
}

void judge(const std::string& name, double small, double large, double growth, const std::string& unit,
           const std::string& note) {
    figure f;
    f.name = name;
    f.ours = large;
    f.baseline = small;
    f.unit = unit;
    f.judged = goal::ratio_at_most;
    f.target = 1.25 * growth; // in proportion, with room for noise
    f.note = note;
    print(f);
}

} // namespace

void recording_scale(const context& c) {
    const scratch_dir dir;
    const served tree(c.emulator, serve_options("trn2.48xlarge").without_control());
    const std::uint32_t small_samples = c.quick ? 20 : 70;
    const auto small = measure(c, tree, dir, small_samples);
    const auto large = measure(c, tree, dir, 4 * small_samples);
    const auto growth = large.bytes / small.bytes;
    const auto mb = [](double bytes) { return bytes / 1e6; };
    const auto detail = [&](const cost& s, const cost& l) {
        return fmt::format(
            "{:.1f} MB: {:.1f} s wall, {:.1f} s CPU, {:.0f} MiB; {:.1f} MB: {:.1f} s wall, {:.1f} s CPU, "
            "{:.0f} MiB (the file {:.2f}x)",
            mb(small.bytes), s.wall_s, s.cpu_s, s.peak_mib, mb(large.bytes), l.wall_s, l.cpu_s, l.peak_mib, growth);
    };
    judge("12 diff of a recording: CPU", small.diff.cpu_s, large.diff.cpu_s, growth, "s",
          detail(small.diff, large.diff));
    judge("12 diff of a recording: peak RSS", small.diff.peak_mib, large.diff.peak_mib, growth, "MiB",
          "the smaller's is the baseline");
    judge("12 serve --from until serving: CPU", small.serve.cpu_s, large.serve.cpu_s, growth, "s",
          detail(small.serve, large.serve));
    judge("12 serve --from until serving: peak RSS", small.serve.peak_mib, large.serve.peak_mib, growth, "MiB",
          "the smaller's is the baseline");
    figure per_byte;
    per_byte.name = "12 serve --from: memory per byte of recording";
    per_byte.ours = large.serve.peak_mib * 1048576.0 / large.bytes;
    per_byte.unit = "B";
    per_byte.judged = goal::value_at_most;
    per_byte.target = 8;
    per_byte.note = "peak RSS of the larger replay over its file's size (a change per sampled value)";
    print(per_byte);
}

} // namespace neuron::bench
