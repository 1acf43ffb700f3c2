// Figure 6: `neuron-emu serve --instance trn2.48xlarge` from start to a
// mounted tree and its resident memory, against the minimal FUSE filesystem
// started the same way (`neuron-bench floor-fs DIR`); then 100 serve/stop
// cycles, after which no mount, process, thread or descriptor may be left.

#include "figures.h"
#include "support/floor_process.h"
#include "support/measure.h"
#include "support/scrape.h"
#include "support/served.h"

#include "neuron/common/child_process.h"

#include <fmt/format.h>

#include <csignal>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace neuron::bench {
namespace {

// The floor filesystem in a process of its own: start to mounted, and its memory.
std::pair<nanoseconds, double> floor_start() {
    scratch_dir dir;
    const auto start = clock::now();
    floor_process floor(dir.path());
    return {clock::now() - start, rss_mib(floor.pid())};
}

} // namespace

void serve_lifecycle(const context& c) {
    const int starts = c.quick ? 4 : 10;
    samples ours_start, floor_start_times;
    double ours_rss = 0;
    double floor_rss = 0;
    for (int i = 0; i < starts; ++i) {
        const auto start = clock::now();
        served emulator(c.emulator, serve_options("trn2.48xlarge").without_control());
        ours_start.add(clock::now() - start);
        if (mounts_below(emulator.tree()) != 1) throw std::runtime_error("the ready line came before the mount");
        (void)scrape(emulator.tree());
        ours_rss = std::max(ours_rss, emulator.rss_mib());
        if (emulator.stop() != 0) throw std::runtime_error("serve did not exit 0 on SIGTERM");
        const auto [took, memory] = floor_start();
        floor_start_times.add(took);
        floor_rss = std::max(floor_rss, memory);
    }
    print({"6a serve trn2.48xlarge: start to mounted", ours_start.median() / 1e6, floor_start_times.median() / 1e6,
           "ms", goal::value_at_most, 300,
           fmt::format("median of {}; baseline: the minimal FUSE filesystem's process, start to mounted", starts)});
    print({"6b serve trn2.48xlarge: resident memory", ours_rss, floor_rss, "MiB", goal::value_at_most, 64,
           "the largest after a full scrape; baseline: the minimal FUSE filesystem's"});

    const int cycles = c.quick ? 20 : 100;
    scratch_dir base;
    const int fds_before = open_fds();
    const int threads_before = threads();
    const auto start = clock::now();
    int bad_exits = 0;
    int mounts = 0;
    for (int i = 0; i < cycles; ++i) {
        served emulator(c.emulator, serve_options("trn2.48xlarge").without_control().trees_in(base.path()));
        bad_exits += emulator.stop() != 0;
        // Before the scratch directory's own clean-up detaches anything.
        mounts += mounts_below(emulator.tree());
    }
    const auto took = clock::now() - start;
    int leftover_children = children();
    while (::waitpid(-1, nullptr, WNOHANG) > 0) ++leftover_children;
    const int fds = open_fds() - fds_before;
    const int extra_threads = threads() - threads_before;
    const double left = mounts + fds + extra_threads + leftover_children + bad_exits;
    print({fmt::format("6c {} serve/stop cycles: things left behind", cycles), left, 0, "", goal::value_at_most, 0,
           fmt::format("{} mounts, {} descriptors, {} threads, {} processes, {} unclean exits; {:.2f} s per "
                       "cycle",
                       mounts, fds, extra_threads, leftover_children, bad_exits,
                       std::chrono::duration<double>(took).count() / cycles)});
}

} // namespace neuron::bench
