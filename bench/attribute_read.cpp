// Figure 1: an attribute read through the mounted tree, against the
// minimal FUSE filesystem (the floor) and a kernel sysfs attribute, both as
// pread(2) on an open fd and as open + read + close. Rounds alternate
// between the three so that the machine's noise falls on all alike.

#include "figures.h"
#include "support/floor_process.h"
#include "support/measure.h"
#include "support/placement.h"
#include "support/served.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace neuron::bench {
namespace {

constexpr const char* kernel_attribute = "/sys/class/net/lo/statistics/rx_bytes";

void pread_once(int fd) {
    char buffer[4096];
    if (::pread(fd, buffer, sizeof buffer, 0) <= 0) throw std::runtime_error("pread failed");
}

void open_read_close(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("open " + path + " failed");
    char buffer[4096];
    const auto n = ::read(fd, buffer, sizeof buffer);
    ::close(fd);
    if (n <= 0) throw std::runtime_error("read " + path + " failed");
}

struct three {
    samples ours, floor, kernel;
};

} // namespace

namespace {

struct timings {
    three pread, open;
};

// Open files, closed however the measurement ends (an open file would keep
// a lazily unmounted filesystem's connection alive).
struct open_files {
    std::vector<int> fds;
    ~open_files() {
        for (const int fd : fds) {
            if (fd >= 0) ::close(fd);
        }
    }
};

timings measure(const std::vector<std::string>& paths, int rounds, int per_round) {
    timings t;
    open_files files;
    auto& fds = files.fds;
    for (const auto& p : paths) {
        fds.push_back(::open(p.c_str(), O_RDONLY));
        if (fds.back() < 0) throw std::runtime_error("cannot open " + p);
    }
    for (int i = 0; i < 200; ++i) { // warm up every path
        for (std::size_t k = 0; k < paths.size(); ++k) {
            pread_once(fds[k]);
            open_read_close(paths[k]);
        }
    }
    for (int r = 0; r < rounds; ++r) {
        for (std::size_t k = 0; k < paths.size(); ++k) {
            auto& pr = k == 0 ? t.pread.ours : k == 1 ? t.pread.floor : t.pread.kernel;
            auto& oc = k == 0 ? t.open.ours : k == 1 ? t.open.floor : t.open.kernel;
            for (int i = 0; i < per_round; ++i) pr.add(time_once([&] { pread_once(fds[k]); }));
            for (int i = 0; i < per_round; ++i) oc.add(time_once([&] { open_read_close(paths[k]); }));
        }
    }
    return t;
}

} // namespace

void attribute_read(const context& c) {
    served emulator(c.emulator, serve_options("trn1.2xlarge").without_control());
    scratch_dir floor_dir;
    floor_process floor(floor_dir.path());
    const std::vector<std::string> paths{emulator.tree() + "/neuron0/neuron_core0/stats/status/success/total",
                                         floor.file(), kernel_attribute};
    const int rounds = c.quick ? 6 : 20;
    const int per_round = c.quick ? 300 : 1000;

    // Both servers and the reader on CPU 0: the cost of the path itself.
    std::optional<timings> apart;
    const auto together = [&] {
        pinned one_cpu(0, {emulator.pid(), floor.pid()});
        auto t = measure(paths, rounds, per_round);
        // The reader on the other CPU: every request wakes a server across CPUs.
        if (cpu_count() > 1) {
            pin_self(1);
            apart = measure(paths, rounds / 2, per_round);
        }
        return t;
    }();

    const auto report = [&](const std::string& what, const three& t, const three* other) {
        print({what + " p50", t.ours.median() / 1e3, t.floor.median() / 1e3, "us", goal::ratio_at_most, 1.2,
               fmt::format("reader and servers on one CPU; p99 ours {:.1f} us, floor {:.1f} us; kernel sysfs p50 "
                           "{:.2f} us (ours {:.1f}x kernel, information only){}",
                           t.ours.p99() / 1e3, t.floor.p99() / 1e3, t.kernel.median() / 1e3,
                           t.ours.median() / t.kernel.median(),
                           other == nullptr ? std::string()
                                            : fmt::format("; reader on the other CPU: ours {:.1f} us, floor {:.1f} us "
                                                          "({:.2f}x)",
                                                          other->ours.median() / 1e3, other->floor.median() / 1e3,
                                                          other->ours.median() / other->floor.median()))});
    };
    report("1a attribute pread on an open fd", together.pread, apart ? &apart->pread : nullptr);
    report("1b attribute open+read+close", together.open, apart ? &apart->open : nullptr);
    emulator.stop();
}

} // namespace neuron::bench
