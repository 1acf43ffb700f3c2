#define BOOST_TEST_MODULE view_memory
// What a view of a session file holds, in proportion to the file: every
// view reads the file as `neuron-emu profile view` does (session_files)
// into an output that keeps nothing, and the heap's peak above where it
// started is compared with the file's size. The heap is counted here, by
// replacing operator new and delete: the count is exact and the same on
// every run (and under sanitizers), unlike a process's resident set.
#include "neuron/profile/perfetto_view.h"
#include "neuron/profile/session_file.h"
#include "neuron/profile/session_files.h"
#include "neuron/profile/summary_views.h"
#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <malloc.h>
#include <new>

namespace {

std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> peak_bytes{0};

void* counted(void* p) {
    if (p == nullptr) throw std::bad_alloc();
    const auto now = live_bytes += malloc_usable_size(p);
    auto peak = peak_bytes.load();
    while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {}
    return p;
}

void uncounted(void* p) {
    if (p == nullptr) return;
    live_bytes -= malloc_usable_size(p);
    std::free(p);
}

} // namespace

// Every form, so that a sanitizer's own operator new handles none of them.
namespace {

void* plain(std::size_t n) { return counted(std::malloc(n == 0 ? 1 : n)); }
void* aligned(std::size_t n, std::align_val_t a) {
    const auto align = static_cast<std::size_t>(a);
    return counted(std::aligned_alloc(align, (std::max<std::size_t>(n, 1) + align - 1) / align * align));
}
template <typename Allocate>
void* or_null(Allocate&& allocate) noexcept {
    try {
        return allocate();
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

} // namespace

void* operator new(std::size_t n) { return plain(n); }
void* operator new[](std::size_t n) { return plain(n); }
void* operator new(std::size_t n, std::align_val_t a) { return aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return aligned(n, a); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    return or_null([&] { return plain(n); });
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    return or_null([&] { return plain(n); });
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return or_null([&] { return aligned(n, a); });
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return or_null([&] { return aligned(n, a); });
}
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { uncounted(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { uncounted(p); }

namespace {

using namespace neuron;
using namespace neuron::profile;

// A pipeline like a compiled kernel's, `steps` times: Sync loads a tile
// (a transfer on the DMA engines, adding 16 to S[0]), Tensor multiplies it
// once the load is in, Vector copies the result out and signals S[1],
// Scalar activates once it has.
core_timeline pipeline(std::uint32_t steps, std::uint64_t execution) {
    core_timeline t;
    t.instance_type = "trn2.48xlarge";
    t.model_name = "pipeline";
    t.execution = execution;
    t.lnc = 2;
    t.figures.core_clock_hz = 2'800'000'000;
    t.figures.engine_clock_hz = {2'400'000'000, 960'000'000, 1'400'000'000, 1'400'000'000, 1'400'000'000};
    t.figures.dma_engines = 16;
    t.figures.queues_per_dma_engine = 16;
    t.figures.dma_bytes_per_ns = 27;
    t.figures.memory_bytes_per_ns = 2900;
    t.figures.cores_per_device = 8;
    t.opcodes = {"dma_copy", "nc_matmul", "tensor_tensor", "activation"};
    t.sources = {"kernel.py:12", "kernel.py:14", "kernel.py:15"};
    std::uint64_t at = 1'000'000;
    t.start_ps = at;
    std::uint32_t s0 = 0, s1 = 0;
    for (std::uint32_t s = 0; s < steps; ++s) {
        const auto x = static_cast<std::uint32_t>(t.transfers.size());
        instruction_record load{at, at + 600'000, 0, s, 0, 0, none, 0, none, 0, x, 0, 4, 0, 0};
        t.instructions.push_back(load);
        const auto arrives = load.end_ps + 64'000;
        t.transfers.push_back({load.end_ps, arrives, 1024, 128, 16, s % 16, 0, 4, memory::hbm, memory::sbuf});
        const auto moved = arrives + 300'000 + (s % 7) * 1000;
        t.dma_runs.push_back({arrives, moved, 131072, x, 0xffff, false});
        s0 += 16;
        t.semaphores.push_back({moved, 0, s0});
        instruction_record mm{moved, moved + 210'000, 8'388'608, s, 1, 1, 0, s0, none, 0, none, 53'000, 0, 3, 4};
        t.instructions.push_back(mm);
        instruction_record copy{mm.end_ps, mm.end_ps + 90'000, 0, s, 2, 2, none, 0, 1, 1, none, 0, 1, 3, 0};
        t.instructions.push_back(copy);
        s1 += 1;
        t.semaphores.push_back({copy.end_ps, 1, s1});
        instruction_record act{copy.end_ps, copy.end_ps + 120'000, 0, s, 3, 2, 1, s1, none, 0, none, 0, 2, 1, 0};
        t.instructions.push_back(act);
        at = load.end_ps;
    }
    t.end_ps = t.instructions.back().end_ps;
    return t;
}

// A session file of four executions, about 8 MiB in all.
struct session_on_disk {
    test_support::temporary_directory dir{"neuron-view-memory"};
    std::string path;
    std::size_t bytes = 0;

    session_on_disk() {
        std::vector<core_timeline> timelines;
        for (std::uint64_t e = 1; e <= 4; ++e) timelines.push_back(pipeline(25'000, e));
        const auto file = encode_session(timelines);
        bytes = file.size();
        path = dir.write("session.ntff", file);
        BOOST_TEST_REQUIRE(bytes > (std::size_t{6} << 20));
    }
};

// The heap's peak above where it was, over `view`, in file sizes.
template <typename View>
double peak_over(const session_on_disk& s, View&& view) {
    std::size_t written = 0;
    const output discard = [&](std::string_view piece) { written += piece.size(); };
    const auto before = live_bytes.load();
    peak_bytes = before;
    view(session_files({s.path}), discard);
    const auto factor = static_cast<double>(peak_bytes.load() - before) / static_cast<double>(s.bytes);
    BOOST_TEST_MESSAGE("peak " << factor << " x the file's " << s.bytes << " bytes; " << written << " written");
    BOOST_TEST(written > 0u);
    return factor;
}

} // namespace

// A view holds one execution decoded (3.5 times the bytes it takes in the
// file, for this pipeline) and its bytes: for a file of four executions,
// 1.3 to 1.5 times the file. Decoding every execution first, as the views
// did, held 4.5 times the file, and the json view's whole output 22 times.
BOOST_FIXTURE_TEST_SUITE(peak_heap_in_file_sizes, session_on_disk)

BOOST_AUTO_TEST_CASE(summary_text_holds_one_execution) {
    BOOST_TEST(peak_over(*this, [](const session_files& f, const output& out) { summary_text(f, out); }) < 2.0);
}

BOOST_AUTO_TEST_CASE(summary_json_holds_one_execution) {
    BOOST_TEST(peak_over(*this, [](const session_files& f, const output& out) { summary_json(f, out); }) < 2.0);
}

BOOST_AUTO_TEST_CASE(json_holds_one_execution_and_streams_its_rows) {
    BOOST_TEST(peak_over(*this, [](const session_files& f, const output& out) { profile_json(f, out); }) < 2.0);
}

// Perfetto keeps what it writes of every execution until the last is read
// (the trace is in time order across them), compact: 3.9 times the file
// here, where every execution decoded and its events held 10.7 times.
BOOST_AUTO_TEST_CASE(perfetto_keeps_compact_slices_and_streams_its_trace) {
    BOOST_TEST(peak_over(*this, [](const session_files& f, const output& out) { perfetto_trace(f, false, out); }) <
               5.0);
}

BOOST_AUTO_TEST_SUITE_END()
