// Figure 2: a metrics agent's full scrape of trn2.48xlarge (every file read
// once) through the mounted tree, against the same tree materialized as
// plain files on tmpfs. Scrapes alternate between the two. What FUSE alone
// costs for as many files is shown beside: the minimal FUSE filesystem's
// one file opened, read to the end and closed that many times.

#include "figures.h"
#include "support/floor_process.h"
#include "support/measure.h"
#include "support/placement.h"
#include "support/scrape.h"
#include "support/served.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <optional>
#include <stdexcept>
#include <unistd.h>

namespace neuron::bench {
namespace {

// open, read until it returns 0, close: what a scrape does with each file.
void read_to_end(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    char buffer[4096];
    while (::read(fd, buffer, sizeof buffer) > 0) {}
    ::close(fd);
}

} // namespace

void full_scrape(const context& c) {
    served mounted(c.emulator, serve_options("trn2.48xlarge").without_control());
    served plain(c.emulator, serve_options("trn2.48xlarge").without_control().materialized().trees_in("/dev/shm"));
    (void)scrape(mounted.tree()); // warm up both (the kernel's dentry cache, ours)
    (void)scrape(plain.tree());
    scratch_dir floor_dir;
    floor_process floor(floor_dir.path());
    // One CPU for the scraper and the servers (support/placement.h).
    std::optional<pinned> one_cpu(std::in_place, 0, std::initializer_list<pid_t>{mounted.pid(), floor.pid()});
    samples ours, baseline, fuse_alone;
    scrape_result ours_last, plain_last;
    const int rounds = c.quick ? 3 : 8;
    for (int r = 0; r < rounds; ++r) {
        ours.add(time_once([&] { ours_last = scrape(mounted.tree()); }));
        baseline.add(time_once([&] { plain_last = scrape(plain.tree()); }));
        fuse_alone.add(time_once([&] {
            for (std::uint64_t i = 0; i < ours_last.files; ++i) read_to_end(floor.file());
        }));
    }
    one_cpu.reset();
    if (ours_last.files != plain_last.files) {
        throw std::runtime_error(
            fmt::format("the trees differ: {} files mounted, {} materialized", ours_last.files, plain_last.files));
    }
    const double files_per_second = static_cast<double>(ours_last.files) / (ours.median() / 1e9);
    const double plain_per_second = static_cast<double>(plain_last.files) / (baseline.median() / 1e9);
    print({"2 full scrape of trn2.48xlarge", ours.median() / 1e6, baseline.median() / 1e6, "ms", goal::ratio_at_most,
           10,
           fmt::format("{} files ({} unreadable, as on sysfs), {:.0f} files/s; materialized on tmpfs: {} files, "
                       "{:.0f} files/s; scraper and servers on one CPU",
                       ours_last.files, ours_last.errors, files_per_second, plain_last.files, plain_per_second)});
    print({"2b full scrape: FUSE alone for as many files", ours.median() / 1e6, fuse_alone.median() / 1e6, "ms",
           goal::info, 0,
           fmt::format("the minimal FUSE filesystem's file opened, read to the end and closed {} times: the least "
                       "any FUSE tree can take ({:.1f}x the tmpfs scrape)",
                       ours_last.files, fuse_alone.median() / baseline.median())});
    mounted.stop();
    plain.stop();
}

} // namespace neuron::bench
