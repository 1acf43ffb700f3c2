// Figure 4: debug-stream throughput, 1 KiB events, model -> shim ->
// application: the emulator emits device prints (1 KiB of tensor data each)
// on a core this process owns and the application reads them through
// libnrt's debug-stream client, as a consumer does (poll, read_one_event,
// free). The baseline moves datagrams of the same size through a raw
// SOCK_SEQPACKET socketpair from another process, read as a consumer reads
// the stream (poll, then every datagram waiting, each into a malloc'ed
// buffer that is freed), in the same run.

#include "figures.h"
#include "support/measure.h"
#include "support/placement.h"
#include "support/served.h"

#include "neuron/protocol/simple_client.h"

#include <nrt/ndebug_stream.h>
#include <nrt/nrt.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace neuron::bench {
namespace {

using protocol::message_type;

constexpr std::size_t tensor_bytes = 1024;
constexpr std::size_t datagram_bytes = 64 + 1024 + tensor_bytes; // header, tensor-read struct, data
constexpr std::uint32_t batch = 1024;                            // events per emit request
constexpr std::uint64_t in_flight = 8192;                        // emitted and not yet read, at most

// Events per second through the emulator and the shim. The emitter keeps
// `in_flight` events ahead of the reader (a model printing as it runs, not
// one burst held in memory), waiting on the reader's progress.
double ours_rate(const served& emulator, std::uint64_t events) {
    ::setenv("NEURON_EMU_CONTROL", emulator.control_path().c_str(), 1);
    ::setenv("NEURON_RT_VISIBLE_CORES", "0", 1);
    if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) throw std::runtime_error("nrt_init failed");
    int fd = -1;
    if (nrt_debug_client_connect(0, &fd) != NRT_SUCCESS) throw std::runtime_error("nrt_debug_client_connect failed");
    protocol::simple_client control(emulator.control_path(), protocol::peer_role::control, "neuron-bench");

    std::mutex mutex;
    std::condition_variable progress;
    std::uint64_t read = 0;
    bool ended = false; // either side gave up
    std::string problem;
    const auto give_up = [&](std::string why) {
        std::lock_guard lock(mutex);
        if (problem.empty()) problem = std::move(why);
        ended = true;
        progress.notify_all();
    };
    const auto start = clock::now();
    std::thread emitter([&] {
        try {
            for (std::uint64_t emitted = 0; emitted < events; emitted += batch) {
                {
                    std::unique_lock lock(mutex);
                    progress.wait(lock, [&] { return ended || emitted - read <= in_flight - batch; });
                    if (ended) return;
                }
                protocol::emit_debug m;
                m.logical_core = 0;
                m.count = batch;
                m.prefix = "bench";
                m.dtype = "uint8";
                m.shape = {tensor_bytes};
                const auto r =
                    control.call<protocol::debug_emitted>(message_type::emit_debug, m, message_type::debug_emitted);
                if (r.accepted != batch) throw std::runtime_error("events were dropped");
            }
        } catch (const std::exception& e) {
            give_up(e.what());
        }
    });
    const auto deadline = start + std::chrono::seconds(120);
    std::uint64_t got = 0;
    while (got < events) {
        {
            std::lock_guard lock(mutex);
            if (ended) break;
        }
        if (clock::now() > deadline) {
            give_up(fmt::format("only {} of {} events arrived within 120 s", got, events));
            break;
        }
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, 1000);
        const auto before = got;
        for (;;) {
            ndebug_stream_event_header_t header;
            void* payload = nullptr;
            if (nrt_debug_client_read_one_event(fd, &header, &payload) != NRT_SUCCESS) break;
            std::free(payload);
            ++got;
        }
        if (got / batch != before / batch) { // a batch's worth read: the emitter may go on
            std::lock_guard lock(mutex);
            read = got;
            progress.notify_one();
        }
    }
    const auto elapsed = clock::now() - start;
    emitter.join();
    nrt_debug_client_connect_close(fd);
    nrt_close();
    if (!problem.empty()) throw std::runtime_error(problem);
    return static_cast<double>(events) / std::chrono::duration<double>(elapsed).count();
}

// Events per second through a raw socketpair, sent from another process
// (as the emulator's are) and received here.
double raw_rate(std::uint64_t events, bool confine_sender) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        throw std::runtime_error("socketpair failed");
    const int size = 4 << 20;
    ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size);
    const auto start = clock::now();
    const pid_t sender = ::fork();
    if (sender == 0) {
        if (confine_sender && cpu_count() > 1) {
            pin_self(0); // the producer's CPU, as the emulator's
        } else {
            unpin_self();
        }
        ::close(fds[1]);
        std::vector<char> datagram(datagram_bytes, 'x');
        for (std::uint64_t i = 0; i < events; ++i) {
            while (::send(fds[0], datagram.data(), datagram.size(), MSG_NOSIGNAL) < 0 && errno == EINTR) {}
        }
        ::_exit(0);
    }
    ::close(fds[0]); // the sender's end: if it dies, recv sees the end
    // As a debug-stream consumer reads: poll, then take what waits.
    for (std::uint64_t received = 0; received < events;) {
        pollfd p{fds[1], POLLIN, 0};
        ::poll(&p, 1, 1000);
        while (received < events) {
            void* buffer = std::malloc(datagram_bytes);
            const auto got = ::recv(fds[1], buffer, datagram_bytes, MSG_DONTWAIT);
            std::free(buffer);
            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
            if (got <= 0) {
                ::waitpid(sender, nullptr, 0);
                ::close(fds[1]);
                throw std::runtime_error("the raw sender ended early");
            }
            ++received;
        }
    }
    const auto elapsed = clock::now() - start;
    ::waitpid(sender, nullptr, 0);
    ::close(fds[1]);
    return static_cast<double>(events) / std::chrono::duration<double>(elapsed).count();
}

// The consumer (this process) on CPU 1 and, when `confine` says so, the
// producer (the emulator, or the raw sender) on CPU 0, for as long as it
// lives: where the scheduler would put them differs from run to run
// (support/placement.h).
struct placement {
    pid_t producer;
    placement(pid_t p, bool confine) : producer(p) {
        if (cpu_count() < 2) return;
        if (confine) pin_process(producer, 0);
        pin_self(1);
    }
    ~placement() {
        unpin_self();
        unpin_process(producer);
    }
};

} // namespace

void debug_stream(const context& c) {
    served emulator(c.emulator, serve_options("trn1.2xlarge"));
    const std::uint64_t events = 131072;
    const auto mid = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const auto measure = [&](bool confine) {
        std::vector<double> ours, raw;
        placement placed(emulator.pid(), confine);
        for (int r = 0; r < (c.quick ? 3 : 7); ++r) {
            ours.push_back(ours_rate(emulator, events));
            raw.push_back(raw_rate(events, confine));
        }
        return std::pair{mid(ours), mid(raw)};
    };
    const auto [ours_confined, raw_confined] = measure(true);
    const auto [ours_free, raw_free] = measure(false);
    print({"4a debug stream, 1 KiB events", ours_confined, raw_confined, "events/s", goal::ratio_at_least, 0.5,
           fmt::format("median of {} runs of {} events each; consumer on CPU 1, producer on CPU 0 (all of the "
                       "emulator's threads, or the raw sender); raw: SOCK_SEQPACKET socketpair from another process, "
                       "{} B datagrams",
                       c.quick ? 3 : 7, events, datagram_bytes)});
    print({"4b debug stream, producers anywhere", ours_free, raw_free, "events/s", goal::info, 0,
           "consumer on CPU 1; the emulator's threads and the raw sender wherever the scheduler puts them"});
    emulator.stop();
}

} // namespace neuron::bench
