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
#include <cstdlib>
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
constexpr std::uint32_t batch = 4096;

// Events per second through the emulator and the shim.
double ours_rate(const served& emulator, std::uint64_t events) {
    ::setenv("NEURON_EMU_CONTROL", emulator.control_path().c_str(), 1);
    ::setenv("NEURON_RT_VISIBLE_CORES", "0", 1);
    if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) throw std::runtime_error("nrt_init failed");
    int fd = -1;
    if (nrt_debug_client_connect(0, &fd) != NRT_SUCCESS) throw std::runtime_error("nrt_debug_client_connect failed");
    protocol::simple_client control(emulator.control_path(), protocol::peer_role::control, "neuron-bench");

    std::atomic<std::uint64_t> read{0};
    std::string problem;
    const auto start = clock::now();
    std::thread emitter([&] {
      try {
        std::uint64_t emitted = 0;
        while (emitted < events) { // all fit in the stream's buffer: nothing is dropped
            protocol::emit_debug m;
            m.logical_core = 0;
            m.count = batch;
            m.prefix = "bench";
            m.dtype = "uint8";
            m.shape = {tensor_bytes};
            const auto r = control.call<protocol::debug_emitted>(message_type::emit_debug, m, message_type::debug_emitted);
            if (r.accepted != batch) throw std::runtime_error("events were dropped");
            emitted += batch;
        }
      } catch (const std::exception& e) {
        problem = e.what();
        read.store(events); // ends the reader
      }
    });
    const auto deadline = start + std::chrono::seconds(120);
    while (read.load() < events) {
        if (clock::now() > deadline) {
            problem = fmt::format("only {} of {} events arrived within 120 s", read.load(), events);
            read.store(events); // ends the emitter's wait
            break;
        }
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, 1000);
        for (;;) {
            ndebug_stream_event_header_t header;
            void* payload = nullptr;
            if (nrt_debug_client_read_one_event(fd, &header, &payload) != NRT_SUCCESS) break;
            std::free(payload);
            read.fetch_add(1, std::memory_order_release);
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
double raw_rate(std::uint64_t events) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) throw std::runtime_error("socketpair failed");
    const int size = 4 << 20;
    ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size);
    const auto start = clock::now();
    const pid_t sender = ::fork();
    if (sender == 0) {
        if (cpu_count() > 1) pin_self(0); // the producer's CPU, as the emulator's
        ::close(fds[1]);
        std::vector<char> datagram(datagram_bytes, 'x');
        for (std::uint64_t i = 0; i < events; ++i) {
            while (::send(fds[0], datagram.data(), datagram.size(), MSG_NOSIGNAL) < 0 && errno == EINTR) {
            }
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


// Producer (the emulator, or the raw sender) on CPU 0, consumer (this
// process) on CPU 1, for as long as it lives: where the scheduler would put
// them differs from run to run (support/placement.h).
struct producer_consumer_placement {
    pid_t producer;
    explicit producer_consumer_placement(pid_t p) : producer(p) {
        if (cpu_count() < 2) return;
        pin_process(producer, 0);
        pin_self(1);
    }
    ~producer_consumer_placement() {
        unpin_self();
        unpin_process(producer);
    }
};

} // namespace

void debug_stream(const context& c) {
    served emulator(c.emulator, serve_options("trn1.2xlarge"));
    const std::uint64_t events = 16 * batch; // the stream's whole buffer (65536 events)
    std::vector<double> ours, raw;
    {
        producer_consumer_placement placement(emulator.pid());
        for (int r = 0; r < (c.quick ? 3 : 7); ++r) {
            ours.push_back(ours_rate(emulator, events));
            raw.push_back(raw_rate(events));
        }
    }
    std::sort(ours.begin(), ours.end());
    std::sort(raw.begin(), raw.end());
    const auto mid = [](const std::vector<double>& v) { return v[v.size() / 2]; };
    print({"4 debug stream, 1 KiB events", mid(ours), mid(raw), "events/s", goal::ratio_at_least, 0.5,
           fmt::format("median of {} runs of {} events each, producer on CPU 0 and consumer on CPU 1; raw: SOCK_SEQPACKET "
                       "socketpair from another process, {} B datagrams",
                       ours.size(), events, datagram_bytes)});
    emulator.stop();
}

} // namespace neuron::bench
