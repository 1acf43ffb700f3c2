#define BOOST_TEST_MODULE debug_stream_hub
#include "neuron/control/debug_stream_hub.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/instance_catalogue.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace neuron;
using namespace neuron::control;
using model::debug_delivery;
using model::logical_cores;

namespace neuron::model {
inline std::ostream& operator<<(std::ostream& os, debug_delivery d) { return os << static_cast<int>(d); }
} // namespace neuron::model

namespace {

using bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t token = 0x5eed5eed12345678ull;
constexpr std::uint64_t connection = 7;

// The client's end of a stream connection: `server` goes to the hub, the
// test reads `client` as the runtime would.
struct socket_pair {
    int server = -1;
    int client = -1;
    socket_pair() {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
            throw std::runtime_error("socketpair failed");
        server = fds[0];
        client = fds[1];
    }
    ~socket_pair() {
        ::close(server);
        ::close(client);
    }
};

// The stream's shared counters, mapped from the memfd open() returns.
class counters_page {
public:
    explicit counters_page(int memfd) {
        BOOST_TEST_REQUIRE(memfd >= 0);
        m_page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        ::close(memfd);
        BOOST_TEST_REQUIRE(m_page != MAP_FAILED);
    }
    ~counters_page() { ::munmap(m_page, 4096); }
    protocol::stream_counters& operator*() const { return *static_cast<protocol::stream_counters*>(m_page); }
    protocol::stream_counters* operator->() const { return static_cast<protocol::stream_counters*>(m_page); }

private:
    void* m_page = MAP_FAILED;
};

model::debug_event event(std::uint32_t device, std::uint32_t core, std::uint32_t index = 0, std::string prefix = "p") {
    model::debug_event e;
    e.device = device;
    e.core = core;
    e.prefix = std::move(prefix);
    e.dtype = "int32";
    e.shape = {1};
    e.pipe = 0;
    e.data.resize(4);
    std::memcpy(e.data.data(), &index, 4);
    return e;
}

std::optional<bytes> receive(int fd) {
    char probe = 0;
    const auto size = ::recv(fd, &probe, 1, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
    if (size < 0) {
        BOOST_TEST_REQUIRE((errno == EAGAIN || errno == EWOULDBLOCK));
        return std::nullopt;
    }
    bytes buffer(static_cast<std::size_t>(size));
    BOOST_TEST_REQUIRE(::recv(fd, buffer.data(), buffer.size(), MSG_DONTWAIT) == size);
    return buffer;
}

template <typename T>
T read_at(const bytes& b, std::size_t at) {
    T v{};
    BOOST_TEST_REQUIRE(at + sizeof(T) <= b.size());
    std::memcpy(&v, b.data() + at, sizeof(T));
    return v;
}

bool all_zero(const bytes& b, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
        if (b[i] != 0) return false;
    }
    return true;
}

// The element of an int32 event made by event(): its index.
std::uint32_t index_of(const bytes& datagram) { return read_at<std::uint32_t>(datagram, 64 + 1024); }

// A hub with one trn2.48xlarge session (LNC=2) owning logical cores first..first+count-1.
struct hub_fixture {
    std::atomic<int> wakes{0};
    debug_stream_hub hub{[this] { ++wakes; }};
    logical_cores lnc2{model::find_instance_type("trn2.48xlarge"), 2};
    socket_pair socket;

    void own(std::uint32_t first, std::uint32_t count) { hub.assign(token, lnc2, first, count); }
    int open(std::uint32_t logical, std::uint32_t capacity = 65536) {
        return hub.open(connection, socket.server, token, logical, capacity);
    }
    const stream_status& status_of(const std::vector<stream_status>& all, std::uint32_t logical) {
        for (const auto& s : all) {
            if (s.logical_core == logical) return s;
        }
        throw std::runtime_error("no status for core " + std::to_string(logical));
    }
};

auto says(std::string text) {
    return [text = std::move(text)](const stream_refused& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

} // namespace

BOOST_FIXTURE_TEST_CASE(open_refuses_an_unknown_token, hub_fixture) {
    BOOST_CHECK_EXCEPTION(hub.open(connection, socket.server, 1234, 0, 16), stream_refused,
                          says("no open runtime session"));
    own(0, 2);
    BOOST_CHECK_THROW(hub.open(connection, socket.server, token + 1, 0, 16), stream_refused);
}

BOOST_FIXTURE_TEST_CASE(open_refuses_cores_outside_the_session, hub_fixture) {
    own(4, 2);
    for (const std::uint32_t outside : {0u, 3u, 6u, 63u, 64u}) {
        BOOST_CHECK_EXCEPTION(open(outside, 16), stream_refused, says("is not owned by this process"));
    }
    counters_page page(open(5, 16));
    BOOST_TEST(page->accepted.load() == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_second_client_on_the_same_core_is_refused, hub_fixture) {
    own(0, 2);
    counters_page first(open(0));
    socket_pair other;
    BOOST_CHECK_EXCEPTION(hub.open(connection + 1, other.server, token, 0, 16), stream_refused,
                          says("already has a debug stream client"));
    counters_page second(hub.open(connection + 1, other.server, token, 1, 16)); // the neighbour is free
    hub.close(connection);
    counters_page again(hub.open(connection + 2, socket.server, token, 0, 16)); // free again after close
}

BOOST_FIXTURE_TEST_CASE(a_stream_without_room_is_refused, hub_fixture) {
    own(0, 1);
    BOOST_CHECK_EXCEPTION(open(0, 0), stream_refused, says("at least one event"));
    counters_page page(open(0, 1));
}

BOOST_FIXTURE_TEST_CASE(the_counters_page_starts_at_zero, hub_fixture) {
    own(0, 1);
    counters_page page(open(0, 8));
    BOOST_TEST(page->accepted.load() == 0u);
    BOOST_TEST(page->consumed.load() == 0u);
    BOOST_TEST(page->dropped.load() == 0u);
}

BOOST_FIXTURE_TEST_CASE(events_of_cores_nobody_owns_are_discarded, hub_fixture) {
    BOOST_TEST(hub.deliver(event(0, 0)) == debug_delivery::discarded);
    own(0, 1); // physical cores (0, 0) and (0, 1)
    BOOST_TEST(hub.deliver(event(0, 2)) == debug_delivery::discarded);
    BOOST_TEST(hub.deliver(event(1, 0)) == debug_delivery::discarded);
    const auto all = hub.status();
    BOOST_TEST_REQUIRE(all.size() == 1u);
    BOOST_TEST(all[0].discarded == 0u); // not this session's
    BOOST_TEST(wakes.load() == 0);
}

BOOST_FIXTURE_TEST_CASE(events_before_a_client_connects_are_discarded_and_counted, hub_fixture) {
    own(0, 2);
    BOOST_TEST(hub.deliver(event(0, 1)) == debug_delivery::discarded); // logical 0's second physical core
    BOOST_TEST(hub.deliver(event(0, 0)) == debug_delivery::discarded);
    BOOST_TEST(hub.deliver(event(0, 3)) == debug_delivery::discarded); // logical 1
    const auto all = hub.status();
    BOOST_TEST_REQUIRE(all.size() == 2u);
    BOOST_TEST(status_of(all, 0).token == token);
    BOOST_TEST(status_of(all, 0).connected == false);
    BOOST_TEST(status_of(all, 0).discarded == 2u);
    BOOST_TEST(status_of(all, 1).discarded == 1u);
    BOOST_TEST(status_of(all, 0).accepted == 0u);
    BOOST_TEST(wakes.load() == 0);
}

BOOST_FIXTURE_TEST_CASE(events_are_accepted_up_to_the_capacity_and_dropped_exactly_beyond, hub_fixture) {
    own(0, 1);
    counters_page page(open(0, 4));
    for (std::uint32_t i = 0; i < 4; ++i) BOOST_TEST(hub.deliver(event(0, i % 2, i)) == debug_delivery::accepted);
    for (std::uint32_t i = 0; i < 3; ++i) BOOST_TEST(hub.deliver(event(0, 0, 100 + i)) == debug_delivery::dropped);
    BOOST_TEST(page->accepted.load() == 4u);
    BOOST_TEST(page->dropped.load() == 3u);
    BOOST_TEST(page->consumed.load() == 0u);
    const auto all = hub.status();
    BOOST_TEST_REQUIRE(all.size() == 1u);
    BOOST_TEST(all[0].connected == true);
    BOOST_TEST(all[0].capacity == 4u);
    BOOST_TEST(all[0].accepted == 4u);
    BOOST_TEST(all[0].fill == 4u);
    BOOST_TEST(all[0].dropped == 3u);
    BOOST_TEST(all[0].discarded == 0u);
}

BOOST_FIXTURE_TEST_CASE(sending_does_not_make_room_only_consuming_does, hub_fixture) {
    own(0, 1);
    counters_page page(open(0, 3));
    for (std::uint32_t i = 0; i < 3; ++i) BOOST_TEST(hub.deliver(event(0, 0, i)) == debug_delivery::accepted);
    BOOST_TEST(hub.flush(connection) == false);
    BOOST_TEST(hub.deliver(event(0, 0, 3)) == debug_delivery::dropped); // on the socket, but not read
    page->consumed.fetch_add(2);                                        // the client read two
    BOOST_TEST(hub.deliver(event(0, 0, 4)) == debug_delivery::accepted);
    BOOST_TEST(hub.deliver(event(0, 0, 5)) == debug_delivery::accepted);
    BOOST_TEST(hub.deliver(event(0, 0, 6)) == debug_delivery::dropped);
    BOOST_TEST(page->accepted.load() == 5u);
    BOOST_TEST(page->dropped.load() == 2u);
    const auto all = hub.status();
    BOOST_TEST(all.at(0).consumed == 2u);
    BOOST_TEST(all.at(0).fill == 3u);
}

BOOST_FIXTURE_TEST_CASE(flush_sends_one_datagram_per_event_in_the_stream_layout, hub_fixture) {
    own(0, 2); // logical 0: physical (0,0),(0,1); logical 1: (0,2),(0,3)
    counters_page page(open(1));
    model::debug_event e;
    e.device = 0;
    e.core = 3;
    e.prefix = "layer.out";
    e.dtype = "bfloat16";
    e.shape = {2, 3, 1};
    e.pipe = 1;
    e.data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    BOOST_TEST(hub.deliver(model::debug_event(e)) == debug_delivery::accepted);
    BOOST_TEST(hub.flush(connection) == false);
    const auto got = receive(socket.client);
    BOOST_TEST_REQUIRE(got.has_value());
    const auto& d = *got;
    BOOST_TEST_REQUIRE(d.size() == 64u + 1024u + 12u);
    // ndebug_stream_event_header_t
    BOOST_TEST(read_at<std::uint64_t>(d, 0) == 1024u + 12u); // data_size: the whole payload
    BOOST_TEST(read_at<std::uint32_t>(d, 8) == 1u);          // DEBUG_TENSOR_READ
    BOOST_TEST(all_zero(d, 12, 64));
    // ndebug_stream_payload_debug_tensor_read_t
    const std::size_t p = 64;
    BOOST_TEST(std::string(reinterpret_cast<const char*>(d.data() + p)) == "layer.out");
    BOOST_TEST(all_zero(d, p + 9, p + 512));
    BOOST_TEST(read_at<std::uint32_t>(d, p + 512) == 1u); // logical_nc_id: the session's second core
    BOOST_TEST(read_at<std::uint32_t>(d, p + 516) == 1u); // pipe
    BOOST_TEST(std::string(reinterpret_cast<const char*>(d.data() + p + 520)) == "bfloat16");
    BOOST_TEST(all_zero(d, p + 528, p + 536));
    BOOST_TEST(read_at<std::uint64_t>(d, p + 536) == 2u);
    BOOST_TEST(read_at<std::uint64_t>(d, p + 544) == 3u);
    BOOST_TEST(read_at<std::uint64_t>(d, p + 552) == 1u);
    BOOST_TEST(all_zero(d, p + 560, p + 600));             // unused dimensions
    BOOST_TEST(read_at<std::uint64_t>(d, p + 600) == 12u); // tensor_data_size
    BOOST_TEST(all_zero(d, p + 608, p + 1024));            // reserved0
    BOOST_TEST(bytes(d.begin() + p + 1024, d.end()) == e.data, boost::test_tools::per_element());
    BOOST_TEST(!receive(socket.client).has_value()); // one event, one datagram
}

BOOST_FIXTURE_TEST_CASE(the_logical_nc_id_counts_from_the_sessions_first_core, hub_fixture) {
    own(6, 2); // logical 6: physical (1,4),(1,5); logical 7: (1,6),(1,7)
    counters_page page(open(7));
    BOOST_TEST(hub.deliver(event(1, 6, 10)) == debug_delivery::accepted);
    BOOST_TEST(hub.deliver(event(1, 7, 11)) == debug_delivery::accepted);
    BOOST_TEST(hub.deliver(event(1, 5, 12)) == debug_delivery::discarded); // logical 6: no client
    hub.flush(connection);
    for (std::uint32_t expected : {10u, 11u}) {
        const auto got = receive(socket.client);
        BOOST_TEST_REQUIRE(got.has_value());
        BOOST_TEST(read_at<std::uint32_t>(*got, 64 + 512) == 1u);
        BOOST_TEST(index_of(*got) == expected);
    }
}

BOOST_FIXTURE_TEST_CASE(events_keep_their_order, hub_fixture) {
    own(0, 1);
    counters_page page(open(0, 1000));
    for (std::uint32_t i = 0; i < 200; ++i) {
        BOOST_TEST_REQUIRE(hub.deliver(event(0, i % 2, i)) == debug_delivery::accepted);
        if (i % 37 == 0) hub.flush(connection);
    }
    hub.flush(connection);
    for (std::uint32_t i = 0; i < 200; ++i) {
        const auto got = receive(socket.client);
        BOOST_TEST_REQUIRE(got.has_value());
        BOOST_TEST_REQUIRE(index_of(*got) == i);
    }
    BOOST_TEST(!receive(socket.client).has_value());
}

BOOST_FIXTURE_TEST_CASE(a_full_socket_keeps_the_rest_in_order_for_later, hub_fixture) {
    own(0, 1);
    counters_page page(open(0, 10'000));
    const std::uint32_t count = 200; // 64 KiB each: more than any send buffer holds
    for (std::uint32_t i = 0; i < count; ++i) {
        auto e = event(0, 0, i);
        e.data.resize(64 * 1024);
        BOOST_TEST_REQUIRE(hub.deliver(std::move(e)) == debug_delivery::accepted);
    }
    BOOST_TEST(hub.flush(connection) == true); // blocked: retry once writable
    std::uint32_t next = 0;
    for (bool blocked = true; next < count;) {
        const auto got = receive(socket.client);
        if (!got) {
            BOOST_TEST_REQUIRE(blocked, "nothing left to read, nothing left to send, at event " << next);
            blocked = hub.flush(connection);
            continue;
        }
        BOOST_TEST_REQUIRE(index_of(*got) == next);
        ++next;
    }
    BOOST_TEST(hub.flush(connection) == false);
}

// Without CAP_NET_ADMIN, open()'s 4 MiB send buffer is capped by
// net.core.wmem_max (212992 on a stock kernel, doubled by the kernel): a
// 1 MiB print (the largest the model file and emit-debug allow) cannot be
// sent there. Set that buffer here to get the same socket as such a host.
BOOST_FIXTURE_TEST_CASE(an_event_the_socket_cannot_carry_does_not_take_the_others_with_it, hub_fixture) {
    own(0, 1);
    counters_page page(open(0, 100));
    const int stock_wmem_max = 212992;
    BOOST_TEST_REQUIRE(::setsockopt(socket.server, SOL_SOCKET, SO_SNDBUF, &stock_wmem_max, sizeof(stock_wmem_max)) ==
                       0);
    BOOST_TEST(hub.deliver(event(0, 0, 1)) == debug_delivery::accepted);
    auto huge = event(0, 0, 2);
    huge.data.resize(1 << 20);
    hub.deliver(std::move(huge));
    BOOST_TEST(hub.deliver(event(0, 0, 3)) == debug_delivery::accepted);
    hub.flush(connection);
    const auto first = receive(socket.client);
    BOOST_TEST_REQUIRE(first.has_value());
    BOOST_TEST(index_of(*first) == 1u);
    std::vector<std::uint32_t> rest;
    while (const auto got = receive(socket.client)) rest.push_back(index_of(*got));
    // The third event was accepted and fits: it must arrive (the second too,
    // or else it must not count as accepted).
    BOOST_TEST((std::find(rest.begin(), rest.end(), 3u) != rest.end()), "event 3 was accepted but never sent");
    BOOST_TEST(page->accepted.load() == 1u + rest.size(),
               "accepted " << page->accepted.load() << ", delivered " << 1 + rest.size());
}

BOOST_FIXTURE_TEST_CASE(a_core_before_the_sessions_first_is_named_sensibly, hub_fixture) {
    own(4, 2);
    try {
        open(1, 16);
        BOOST_ERROR("accepted");
    } catch (const stream_refused& e) {
        const std::string message = e.what();
        BOOST_TEST(message.find("4294967") == std::string::npos, "a wrapped-around core number: " << message);
    }
}

BOOST_FIXTURE_TEST_CASE(wake_fires_once_per_empty_to_non_empty_transition, hub_fixture) {
    own(0, 1);
    counters_page page(open(0, 100));
    hub.deliver(event(0, 0, 0));
    hub.deliver(event(0, 0, 1));
    hub.deliver(event(0, 1, 2));
    BOOST_TEST(wakes.load() == 1);
    BOOST_TEST(hub.take_ready() == std::vector<std::uint64_t>({connection}), boost::test_tools::per_element());
    BOOST_TEST(hub.take_ready().empty());
    hub.flush(connection);
    BOOST_TEST(wakes.load() == 1);
    hub.deliver(event(0, 0, 3));
    BOOST_TEST(wakes.load() == 2);
    hub.deliver(event(0, 0, 4));
    BOOST_TEST(wakes.load() == 2);
    BOOST_TEST(hub.take_ready() == std::vector<std::uint64_t>({connection}), boost::test_tools::per_element());
}

BOOST_FIXTURE_TEST_CASE(dropped_and_discarded_events_wake_nobody, hub_fixture) {
    own(0, 2);
    counters_page page(open(0, 1));
    BOOST_TEST(hub.deliver(event(0, 0, 0)) == debug_delivery::accepted);
    BOOST_TEST(wakes.load() == 1);
    hub.take_ready();
    hub.flush(connection);
    BOOST_TEST(hub.deliver(event(0, 0, 1)) == debug_delivery::dropped);
    BOOST_TEST(hub.deliver(event(0, 2, 2)) == debug_delivery::discarded);
    BOOST_TEST(hub.deliver(event(3, 0, 3)) == debug_delivery::discarded);
    BOOST_TEST(wakes.load() == 1);
    BOOST_TEST(hub.take_ready().empty());
}

BOOST_FIXTURE_TEST_CASE(a_closed_stream_discards_again, hub_fixture) {
    own(0, 1);
    {
        counters_page page(open(0, 10));
        BOOST_TEST(hub.deliver(event(0, 0)) == debug_delivery::accepted);
    }
    hub.close(connection);
    BOOST_TEST(hub.flush(connection) == false); // nothing to do for a closed stream
    BOOST_TEST(hub.deliver(event(0, 0)) == debug_delivery::discarded);
    const auto all = hub.status();
    BOOST_TEST_REQUIRE(all.size() == 1u);
    BOOST_TEST(all[0].connected == false);
    BOOST_TEST(all[0].discarded == 1u);
}

BOOST_FIXTURE_TEST_CASE(unassigned_cores_discard_and_leave_the_status, hub_fixture) {
    own(0, 1);
    counters_page page(open(0, 10));
    hub.unassign(token);
    BOOST_TEST(hub.deliver(event(0, 0)) == debug_delivery::discarded);
    BOOST_TEST(hub.status().empty());
    BOOST_TEST(page->accepted.load() == 0u);
}

BOOST_AUTO_TEST_CASE(a_long_prefix_is_cut_to_511_characters_and_a_nul) {
    model::debug_event e;
    e.prefix = std::string(600, 'x');
    e.dtype = "float8e4m3fn_x4_and_more"; // longer than the 16-byte field
    e.shape = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    e.data = {0xaa, 0xbb};
    const auto d = encode_debug_event(e, 3);
    BOOST_TEST_REQUIRE(d.size() == debug_event_header_size + debug_tensor_read_size + 2);
    const std::size_t p = debug_event_header_size;
    for (std::size_t i = 0; i < 511; ++i) BOOST_TEST_REQUIRE(d[p + i] == 'x');
    BOOST_TEST(d[p + 511] == 0);
    BOOST_TEST(read_at<std::uint32_t>(d, p + 512) == 3u);
    BOOST_TEST(std::string(reinterpret_cast<const char*>(d.data() + p + 520), 15) == "float8e4m3fn_x4");
    BOOST_TEST(d[p + 535] == 0);
    for (std::size_t i = 0; i < 8; ++i) BOOST_TEST(read_at<std::uint64_t>(d, p + 536 + 8 * i) == i + 1);
    BOOST_TEST(read_at<std::uint64_t>(d, p + 600) == 2u);
    BOOST_TEST(d[p + 1024] == 0xaa);
    BOOST_TEST(d[p + 1025] == 0xbb);
    const auto exact = encode_debug_event(model::debug_event{0, 0, std::string(511, 'y'), "int8", {1}, 0, {}}, 0);
    BOOST_TEST(exact[p + 510] == 'y');
    BOOST_TEST(exact[p + 511] == 0);
    BOOST_TEST(exact.size() == debug_event_header_size + debug_tensor_read_size);
    BOOST_TEST(read_at<std::uint64_t>(exact, 0) == 1024u);
}

// The kernel thread delivers while the I/O thread flushes and the client reads.
BOOST_AUTO_TEST_CASE(events_delivered_from_another_thread_arrive_in_order) {
    const int wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    BOOST_TEST_REQUIRE(wake_fd >= 0);
    debug_stream_hub hub([wake_fd] {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto n = ::write(wake_fd, &one, sizeof(one));
    });
    const logical_cores lnc2(model::find_instance_type("trn2.48xlarge"), 2);
    socket_pair socket;
    hub.assign(token, lnc2, 0, 1);
    counters_page page(hub.open(connection, socket.server, token, 0, 1u << 20));
    constexpr std::uint32_t count = 20'000;
    std::atomic<std::uint32_t> refused{0};
    std::thread kernel([&] {
        for (std::uint32_t i = 0; i < count; ++i) {
            if (hub.deliver(event(0, i % 2, i)) != debug_delivery::accepted) ++refused;
        }
    });
    std::uint32_t next = 0;
    bool blocked = false;
    while (next < count) {
        pollfd fds[2] = {{wake_fd, POLLIN, 0}, {socket.client, POLLIN, 0}};
        BOOST_TEST_REQUIRE(::poll(fds, 2, 10'000) > 0, "stalled at event " << next);
        if (fds[0].revents & POLLIN) {
            std::uint64_t n = 0;
            [[maybe_unused]] const auto r = ::read(wake_fd, &n, sizeof(n));
            for (const auto id : hub.take_ready()) blocked = hub.flush(id);
        }
        while (const auto got = receive(socket.client)) {
            BOOST_TEST_REQUIRE(index_of(*got) == next);
            page->consumed.fetch_add(1);
            ++next;
        }
        if (blocked) blocked = hub.flush(connection);
    }
    kernel.join();
    BOOST_TEST(refused.load() == 0u);
    BOOST_TEST(page->accepted.load() == count);
    BOOST_TEST(page->dropped.load() == 0u);
    hub.close(connection);
    ::close(wake_fd);
}
