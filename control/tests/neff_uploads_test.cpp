#define BOOST_TEST_MODULE neff_uploads
// NEFFs on their way to being loaded, with the limits lowered: the budget
// counts what is held (pieces received, files queued or being read) and
// not what a first piece announces; an idle upload times out; a client
// that leaves takes its queued files with it unread, and stops the one
// being read; so does the NEFF thread stopping. The NEFF thread is held
// with fences (a job waiting on a future), and time is a clock the test moves.

#include "neuron/control/neff_uploads.h"

#include "neuron/control/runtime_service.h"
#include "neuron/model/spec/nrt_status.h"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <thread>

using namespace neuron;
using namespace std::chrono_literals;
using control::background_jobs;
using control::neff_upload_limits;
using control::neff_uploads;
using control::request_error;
namespace nrt = model::nrt_status;

namespace {

constexpr std::uint64_t kib = 1024;

// A clock the test moves.
struct test_clock {
    std::chrono::steady_clock::time_point now{};
    neff_uploads::clock function() {
        return [this] { return now; };
    }
};

protocol::model_piece piece(std::uint64_t total, std::uint64_t offset, std::uint64_t bytes) {
    return {total, offset, std::string(bytes, 'n')};
}

// Refused with `status`, saying `text`.
auto refused(std::uint32_t status, std::string text) {
    return [status, text = std::move(text)](const request_error& e) {
        BOOST_TEST_INFO(e.status() << ": " << e.what());
        return e.status() == status && std::string(e.what()).find(text) != std::string::npos;
    };
}

// Holds the NEFF thread until released: the jobs posted after it wait.
struct fence {
    std::promise<void> open;
    explicit fence(background_jobs& thread) {
        thread.post([done = open.get_future().share()] { done.wait(); });
    }
    void release() { open.set_value(); }
};

// Returns once every job posted to `thread` before it has run.
void drain(background_jobs& thread) {
    std::promise<void> done;
    thread.post([&done] { done.set_value(); });
    done.get_future().wait();
}

} // namespace

// The finding: two idle uploads of 128 KiB announcing huge files reserved
// the whole budget, and every other NEFF over 128 KiB failed.
BOOST_AUTO_TEST_CASE(the_budget_counts_the_pieces_received_not_the_size_announced) {
    background_jobs thread;
    neff_uploads uploads(thread, {1024 * kib, 60s});
    const std::uint64_t huge = protocol::max_neff_bytes;
    uploads.add_piece(1, piece(huge, 0, 128 * kib));
    uploads.add_piece(2, piece(huge, 0, 128 * kib));
    BOOST_TEST(uploads.held_bytes() == 256 * kib);
    for (std::uint64_t at = 0; at < 512 * kib; at += 128 * kib) uploads.add_piece(3, piece(768 * kib, at, 128 * kib));
    BOOST_TEST(uploads.held_bytes() == 256 * kib + 512 * kib, "a doubling buffer, never past the file's size");
    const auto file = uploads.finish(3, std::string(256 * kib, 'n'));
    BOOST_TEST(file.size() == 768 * kib);
    BOOST_TEST(uploads.held_bytes() == 256 * kib, "a finished upload is the caller's");
    uploads.drop(1);
    uploads.drop(2);
    BOOST_TEST(uploads.held_bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(a_piece_past_the_budget_is_refused_and_drops_its_upload) {
    background_jobs thread;
    neff_uploads uploads(thread, {256 * kib, 60s});
    uploads.add_piece(1, piece(1024 * kib, 0, 128 * kib));
    uploads.add_piece(1, piece(1024 * kib, 128 * kib, 128 * kib));
    BOOST_TEST(uploads.held_bytes() == 256 * kib);
    BOOST_CHECK_EXCEPTION(uploads.add_piece(1, piece(1024 * kib, 256 * kib, 128 * kib)), request_error,
                          refused(nrt::resource, "the emulator holds 256 KiB of NEFFs being loaded, its limit"));
    BOOST_TEST(uploads.held_bytes() == 0u);
    BOOST_CHECK_EXCEPTION(uploads.add_piece(1, piece(1024 * kib, 384 * kib, 128 * kib)), request_error,
                          refused(nrt::invalid, "continues none being sent"));
}

BOOST_AUTO_TEST_CASE(an_idle_upload_times_out_and_its_bytes_are_released) {
    background_jobs thread;
    test_clock clock;
    neff_uploads uploads(thread, {1024 * kib, 60s}, clock.function());
    uploads.add_piece(1, piece(512 * kib, 0, 128 * kib));
    uploads.add_piece(2, piece(512 * kib, 0, 128 * kib));
    clock.now += 60s - 1ms;
    uploads.add_piece(2, piece(512 * kib, 128 * kib, 128 * kib));
    BOOST_TEST(uploads.held_bytes() == 128 * kib + 256 * kib, "59.999 s idle: still held");
    clock.now += 1ms;
    uploads.add_piece(2, piece(512 * kib, 256 * kib, 128 * kib));
    BOOST_TEST(uploads.held_bytes() == 512 * kib, "60 s idle: upload 1 is gone, upload 2 holds its doubled buffer");
    BOOST_CHECK_EXCEPTION(uploads.add_piece(1, piece(512 * kib, 128 * kib, 128 * kib)), request_error,
                          refused(nrt::timeout, "the NEFF being sent was dropped: no piece of it came for 60 s"));
    // Said until the connection starts a new upload, which may go on.
    BOOST_CHECK_EXCEPTION(uploads.add_piece(1, piece(512 * kib, 128 * kib, 128 * kib)), request_error,
                          refused(nrt::timeout, "no piece of it came for 60 s"));
    uploads.add_piece(1, piece(128 * kib, 0, 64 * kib));
    BOOST_TEST(uploads.finish(1, std::string(64 * kib, 'n')).size() == 128 * kib);
    // A load_model ending an upload that timed out says so too.
    clock.now += 61s;
    BOOST_CHECK_EXCEPTION(uploads.finish(2, std::string(128 * kib, 'n')), request_error,
                          refused(nrt::timeout, "no piece of it came for 60 s"));
    BOOST_TEST(uploads.held_bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(queued_files_count_until_read_and_a_leaving_clients_are_never_read) {
    background_jobs thread;
    neff_uploads uploads(thread, {1024 * kib, 60s});
    fence busy(thread); // the NEFF thread is reading someone's slow NEFF
    std::atomic<int> read_1 = 0;
    std::atomic<int> read_2 = 0;
    uploads.read_later(1, std::string(400 * kib, 'a'), [&](const std::string&, const neff::stop_test&) { ++read_1; });
    uploads.read_later(2, std::string(400 * kib, 'b'), [&](const std::string&, const neff::stop_test&) { ++read_2; });
    BOOST_TEST(uploads.held_bytes() >= 800 * kib, "queued files are held");
    BOOST_CHECK_EXCEPTION(
        uploads.read_later(3, std::string(400 * kib, 'c'), [](const std::string&, const neff::stop_test&) {}),
        request_error, refused(nrt::resource, "the emulator holds 1 MiB of NEFFs being loaded"));
    uploads.add_piece(3, piece(1024 * kib, 0, 128 * kib));
    BOOST_CHECK_EXCEPTION(uploads.add_piece(3, piece(1024 * kib, 128 * kib, 128 * kib)), request_error,
                          refused(nrt::resource, "its limit"));
    uploads.drop(1); // its client left
    BOOST_TEST(uploads.held_bytes() < 500 * kib, "freed at once, before the NEFF thread comes to it");
    busy.release();
    drain(thread);
    BOOST_TEST(read_1 == 0, "never read");
    BOOST_TEST(read_2 == 1);
    BOOST_TEST(uploads.held_bytes() == 0u, "a file read is released");
}

BOOST_AUTO_TEST_CASE(a_file_being_read_is_stopped_when_its_client_leaves) {
    background_jobs thread;
    neff_uploads uploads(thread, {1024 * kib, 60s});
    std::promise<void> reading;
    std::promise<void> left;
    std::promise<bool> stopped_after;
    uploads.read_later(1, std::string(100 * kib, 'a'), [&](const std::string& bytes, const neff::stop_test& stopped) {
        BOOST_TEST(!stopped());
        BOOST_TEST(bytes.size() == 100 * kib);
        reading.set_value();
        left.get_future().wait();
        stopped_after.set_value(stopped());
    });
    reading.get_future().wait();
    BOOST_TEST(uploads.held_bytes() >= 100 * kib, "held while it is read");
    uploads.drop(1);
    left.set_value();
    BOOST_TEST(stopped_after.get_future().get());
    drain(thread);
    BOOST_TEST(uploads.held_bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(a_file_being_read_is_stopped_when_the_neff_thread_stops) {
    auto thread = std::make_unique<background_jobs>();
    neff_uploads uploads(*thread, {1024 * kib, 60s});
    std::promise<void> reading;
    std::atomic<bool> saw_stop = false;
    std::atomic<int> read_later_file = 0;
    uploads.read_later(1, std::string(100 * kib, 'a'), [&](const std::string&, const neff::stop_test& stopped) {
        reading.set_value();
        while (!stopped()) std::this_thread::yield(); // a NEFF being read, asking as it goes
        saw_stop = true;
    });
    uploads.read_later(2, std::string(100 * kib, 'b'),
                       [&](const std::string&, const neff::stop_test&) { ++read_later_file; });
    reading.get_future().wait();
    thread.reset(); // the server stops: returns once the file being read has stopped
    BOOST_TEST(saw_stop.load());
    BOOST_TEST(read_later_file == 0, "what was queued is dropped");
    BOOST_TEST(uploads.held_bytes() == 0u);
}
