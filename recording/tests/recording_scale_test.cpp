#define BOOST_TEST_MODULE recording_scale
// Recordings at scale: reading one, comparing two and planning a replay
// take memory and work in proportion to the recording's bytes. Measured by
// counting the heap (this executable counts every operator new), not by a
// clock: a recording four times larger costs about four times more, and
// each byte of file a few bytes of memory at most. The recording is one a
// trn2.3xlarge host records: every entry of its layout, its 800 counters
// moving in every sample (bench/ has figure 12 for the larger hosts, recorded
// from a served tree).

#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/recording/recording_file.h"
#include "neuron/recording/replay_plan.h"
#include "neuron/recording/tree_diff.h"
#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/tree_builder.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <malloc.h>
#include <new>

using namespace neuron::recording;
namespace sysfs = neuron::sysfs;

// ---- the heap, counted

namespace {

std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> peak_bytes{0};
std::atomic<std::size_t> allocations{0};

void* counted(std::size_t n) {
    void* p = std::malloc(n == 0 ? 1 : n);
    if (p == nullptr) throw std::bad_alloc();
    const auto now = live_bytes += malloc_usable_size(p);
    ++allocations;
    for (auto peak = peak_bytes.load(); now > peak && !peak_bytes.compare_exchange_weak(peak, now);) {}
    return p;
}

void uncounted(void* p) noexcept {
    if (p == nullptr) return;
    live_bytes -= malloc_usable_size(p);
    std::free(p);
}

} // namespace

void* operator new(std::size_t n) { return counted(n); }
void* operator new[](std::size_t n) { return counted(n); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { uncounted(p); }

namespace {

// What a call allocated: its peak above what was live before, and how many times.
struct heap_use {
    std::size_t peak = 0;
    std::size_t count = 0;
};

template <typename Call>
heap_use metered(Call&& call) {
    const auto before = live_bytes.load();
    peak_bytes = before;
    const auto counted_before = allocations.load();
    call();
    return {peak_bytes.load() - before, allocations.load() - counted_before};
}

// ---- a large recording

void walk(const sysfs::sysfs_tree& tree, sysfs::node_id id, const std::string& path, tree_recording& r) {
    for (const auto child : tree.at(id).children) {
        const auto& n = tree.at(child);
        tree_entry e;
        e.path = path.empty() ? n.name : path + "/" + n.name;
        e.mode = n.mode;
        switch (n.type) {
        case sysfs::node_type::directory:
            e.type = entry_type::directory;
            r.entries.push_back(e);
            walk(tree, child, e.path, r);
            continue;
        case sysfs::node_type::symlink:
            e.type = entry_type::link;
            e.target = n.target;
            break;
        case sysfs::node_type::attribute:
            e.type = entry_type::file;
            e.counter = is_counter(e.path);
            e.value = e.counter ? "0\n" : "1\n";
            break;
        }
        r.entries.push_back(std::move(e));
    }
}

// Every entry of a trn2.3xlarge host at the latest release, each counter
// moving in each of `samples` samples, a second apart.
tree_recording trn2_host(std::size_t samples) {
    const auto& instance = neuron::model::find_instance_type("trn2.3xlarge");
    const auto& release = sysfs::known_releases().back();
    const auto tree = sysfs::build_tree(sysfs::layout(instance, release, 0));
    tree_recording r;
    r.root = "/sys/devices/virtual/neuron_device";
    r.driver_release = std::string(release.tag);
    r.instance_type = instance.spec().instance_type;
    r.device_count = instance.device_count;
    walk(tree, tree.resolve(sysfs::devices_path), "", r);
    std::sort(r.entries.begin(), r.entries.end(),
              [](const auto& a, const auto& b) { return path_less(a.path, b.path); });
    const auto counters = static_cast<std::size_t>(
        std::count_if(r.entries.begin(), r.entries.end(), [](const auto& e) { return e.counter; }));
    r.interval_ns = 1'000'000'000;
    for (std::size_t n = 0; n < samples; ++n) {
        sample s;
        s.at_ns = n * r.interval_ns;
        for (std::size_t i = 0; i < counters; ++i) s.values.push_back(std::to_string((n + 1) * (i % 7 + 1)) + "\n");
        r.samples.push_back(std::move(s));
    }
    return r;
}

struct measured {
    std::size_t bytes = 0; // the recording's text
    heap_use read, diff, plan;
};

measured measure(std::size_t samples) {
    measured m;
    const auto text = write_recording(trn2_host(samples));
    m.bytes = text.size();
    tree_recording a;
    tree_recording b;
    m.read = metered([&] { a = read_recording(text, "host.yaml"); });
    b = read_recording(text, "host.yaml");
    m.diff = metered([&] { BOOST_TEST(diff_recordings(a, b, {.values = true}).empty()); });
    m.plan = metered([&] { (void)plan_replay(a, {"trn2.3xlarge", "", 0}); });
    return m;
}

} // namespace

BOOST_AUTO_TEST_CASE(reading_comparing_and_planning_a_recording_grow_with_its_bytes) {
    const auto small = measure(100);
    const auto large = measure(400);
    BOOST_TEST_MESSAGE("100 samples: " << small.bytes << " bytes; read peak " << small.read.peak << " in "
                                       << small.read.count << " allocations; plan peak " << small.plan.peak << " in "
                                       << small.plan.count);
    BOOST_TEST_MESSAGE("400 samples: " << large.bytes << " bytes; read peak " << large.read.peak << " in "
                                       << large.read.count << " allocations; plan peak " << large.plan.peak << " in "
                                       << large.plan.count);
    const auto growth = static_cast<double>(large.bytes) / static_cast<double>(small.bytes);
    BOOST_TEST_REQUIRE(growth > 3.0);
    for (const auto* m : {&small, &large}) {
        // Read: its values end to end, an offset each, and the entries (as
        // yaml-cpp nodes: 48 bytes and an allocation per byte of file).
        BOOST_TEST(m->read.peak < 2 * m->bytes, m->read.peak << " bytes to read " << m->bytes);
        BOOST_TEST(m->read.count < m->bytes / 8, m->read.count << " allocations to read " << m->bytes);
        // Equal recordings differ nowhere: nothing to hold.
        BOOST_TEST(m->diff.count == 0u);
        // The script: one change per moving value (about 7 bytes of file, 40 of script).
        BOOST_TEST(m->plan.peak < 8 * m->bytes, m->plan.peak << " bytes to plan " << m->bytes);
    }
    // In proportion: four times the samples, at most a little over four times the cost.
    BOOST_TEST(static_cast<double>(large.read.peak) < 1.1 * growth * static_cast<double>(small.read.peak));
    BOOST_TEST(static_cast<double>(large.read.count) < 1.1 * growth * static_cast<double>(small.read.count));
    BOOST_TEST(static_cast<double>(large.plan.peak) < 1.1 * growth * static_cast<double>(small.plan.peak));
}
