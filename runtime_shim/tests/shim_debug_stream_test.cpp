#define BOOST_TEST_MODULE shim_debug_stream
// The debug-stream client API end to end (seeds/neuron-debug-stream-api.txt,
// nrt-api.md §2): an epoll consumer over every core, the 64K-event buffer
// and its drops, events before connect, one client per stream, the buffer
// size variable, and a model's device prints arriving on its core's stream.
// Events come from `neuron-emu ctl emit-debug` (element values = the event's
// index in the emission) or from executions.

#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::shim::testing;

namespace {

std::vector<std::string> events_on(const std::vector<std::string>& lines, int fd_core) {
    std::vector<std::string> out;
    const auto prefix = "EVENT fd_core=" + std::to_string(fd_core) + " ";
    for (const auto& l : lines) {
        if (l.starts_with(prefix)) out.push_back(l);
    }
    return out;
}

std::string emit(served_instance& emu, std::uint32_t global_core, std::uint32_t count,
                 const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"emit-debug", "--core", std::to_string(global_core), "--count",
                                  std::to_string(count)};
    args.insert(args.end(), extra.begin(), extra.end());
    return emu.ctl_ok(args);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_debug_stream, diagnostics)

// Like AWS's nkipy consumer: every visible core connected, epoll, read
// until NRT_QUEUE_EMPTY. The process owns global cores 4-5, which it numbers
// 0-1: each event arrives on the fd of its core with that core's
// logical_nc_id, its prefix, dtype, shape and data.
BOOST_AUTO_TEST_CASE(epoll_consumer_over_all_visible_cores) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge"});
    program consumer(emu.dir(), "epoll_consumer",
                     {.args = {"3"}, .env = {{"NEURON_RT_VISIBLE_CORES", "4-5"}}, .control = emu.control()});
    BOOST_TEST(consumer.expect("READY ") == "READY 2");

    const auto first = emit(emu, 4, 2, {"--prefix", "alpha", "--dtype", "int32", "--shape", "2,3"});
    BOOST_TEST(contains(first, "2 accepted, 0 dropped"), first);
    const auto second = emit(emu, 5, 1, {"--prefix", "beta", "--dtype", "float32", "--shape", "4", "--pipe", "1"});
    BOOST_TEST(contains(second, "1 accepted, 0 dropped"), second);

    BOOST_TEST(consumer.until("DONE") == "DONE 3");
    consumer.require_exit(0);
    const auto on_0 = events_on(consumer.lines(), 0);
    const auto on_1 = events_on(consumer.lines(), 1);
    BOOST_TEST_REQUIRE(on_0.size() == 2u);
    BOOST_TEST_REQUIRE(on_1.size() == 1u);
    BOOST_TEST(on_0[0] == "EVENT fd_core=0 nc=0 pipe=0 prefix=alpha dtype=int32 shape=2,3 bytes=24 data=0,0,0,0,0,0");
    BOOST_TEST(on_0[1] == "EVENT fd_core=0 nc=0 pipe=0 prefix=alpha dtype=int32 shape=2,3 bytes=24 data=1,1,1,1,1,1");
    BOOST_TEST(on_1[0] == "EVENT fd_core=1 nc=1 pipe=1 prefix=beta dtype=float32 shape=4 bytes=16 data=0,0,0,0");
    BOOST_TEST(find_line(consumer.lines(), "EMPTY 0") == "EMPTY 0");
    BOOST_TEST(find_line(consumer.lines(), "EMPTY 1") == "EMPTY 1");
    BOOST_TEST(log_lines(consumer.err()).empty(), consumer.err());
    emu.stop();
}

// 70 000 events while the client does not read: the stream keeps the first
// 65 536 (the default buffer, "64K debug events") and drops the rest; the
// client then reads exactly those, in order, and then NRT_QUEUE_EMPTY.
BOOST_AUTO_TEST_CASE(full_buffer_keeps_first_64k_and_drops_the_rest) {
    require_mount("this test");
    served_instance emu;
    program client(emu.dir(), "session", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(client.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(client.call("connect 0") == "connect 0 NRT_SUCCESS");

    const auto emitted = emit(emu, 0, 70000, {"--dtype", "int32"});
    BOOST_TEST(contains(emitted, "70000 emitted, 65536 accepted, 4464 dropped"), emitted);
    const auto stream = emu.stream_status(0);
    BOOST_TEST_REQUIRE(stream.IsMap());
    BOOST_TEST(stream["connected"].as<bool>());
    BOOST_TEST(stream["capacity"].as<std::uint64_t>() == 65536u);
    BOOST_TEST(stream["accepted"].as<std::uint64_t>() == 65536u);
    BOOST_TEST(stream["dropped"].as<std::uint64_t>() == 4464u);
    BOOST_TEST(stream["discarded"].as<std::uint64_t>() == 0u);

    BOOST_TEST(client.call("drain 0") == "drain 0 count=65536 in_order=1 end=NRT_QUEUE_EMPTY");
    BOOST_TEST(client.call("pollable 0") == "pollable 0 0", "an empty stream must not poll readable");
    const auto after = emu.stream_status(0);
    BOOST_TEST(after["consumed"].as<std::uint64_t>() == 65536u);
    BOOST_TEST(after["fill"].as<std::uint64_t>() == 0u);
    BOOST_TEST(after["dropped"].as<std::uint64_t>() == 4464u);

    // Room again: the next event is accepted and read.
    BOOST_TEST(contains(emit(emu, 0, 1, {"--dtype", "int32"}), "1 accepted, 0 dropped"));
    BOOST_TEST(client.call("read 0").starts_with("read 0 NRT_SUCCESS nc=0 "));
    BOOST_TEST(client.call("read 0") == "read 0 NRT_QUEUE_EMPTY");
    BOOST_TEST(client.call("quit") == "quit");
    client.require_exit(0);
    emu.stop();
}

// "Events are only emitted AFTER a client connects": what is emitted before
// connect, or between close and a new connect, never arrives (counted as
// discarded); close then connect again works.
BOOST_AUTO_TEST_CASE(events_before_connect_never_arrive) {
    require_mount("this test");
    served_instance emu;
    program client(emu.dir(), "session", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(client.call("init") == "init NRT_SUCCESS visible=1");

    BOOST_TEST(contains(emit(emu, 0, 3), "0 accepted, 0 dropped (buffer full), 3 discarded"));
    auto stream = emu.stream_status(0);
    BOOST_TEST_REQUIRE(stream.IsMap());
    BOOST_TEST(!stream["connected"].as<bool>());
    BOOST_TEST(stream["discarded"].as<std::uint64_t>() == 3u);

    BOOST_TEST(client.call("connect 0") == "connect 0 NRT_SUCCESS");
    BOOST_TEST(client.call("pollable 0") == "pollable 0 0");
    BOOST_TEST(client.call("read 0") == "read 0 NRT_QUEUE_EMPTY");

    BOOST_TEST(contains(emit(emu, 0, 2, {"--prefix", "after", "--dtype", "int32"}), "2 accepted"));
    BOOST_TEST(client.call("wait 0 2") == "wait 0 got=2");
    const auto lines = client.lines();
    BOOST_TEST_REQUIRE(lines.size() >= 3u);
    BOOST_TEST(lines[lines.size() - 3] == "event 0 nc=0 pipe=0 prefix=after dtype=int32 shape=1 bytes=4 data=0");
    BOOST_TEST(lines[lines.size() - 2] == "event 0 nc=0 pipe=0 prefix=after dtype=int32 shape=1 bytes=4 data=1");
    BOOST_TEST(client.call("pollable 0") == "pollable 0 0");
    BOOST_TEST(client.call("read 0") == "read 0 NRT_QUEUE_EMPTY");

    BOOST_TEST(client.call("close_stream 0") == "close_stream 0 done");
    BOOST_TEST(contains(emit(emu, 0, 1), "0 accepted, 0 dropped (buffer full), 1 discarded"));
    stream = emu.stream_status(0);
    BOOST_TEST(!stream["connected"].as<bool>());
    BOOST_TEST(stream["discarded"].as<std::uint64_t>() == 4u);

    BOOST_TEST(client.call("connect 0") == "connect 0 NRT_SUCCESS");
    BOOST_TEST(client.call("read 0") == "read 0 NRT_QUEUE_EMPTY");
    BOOST_TEST(contains(emit(emu, 0, 1, {"--prefix", "again"}), "1 accepted"));
    BOOST_TEST(client.call("wait 0 1") == "wait 0 got=1");
    BOOST_TEST(contains(client.lines()[client.lines().size() - 2], "prefix=again"));
    BOOST_TEST(client.call("quit") == "quit");
    client.require_exit(0);
    emu.stop();
}

// One client per stream; only the process's own cores.
BOOST_AUTO_TEST_CASE(second_client_and_foreign_core_are_refused) {
    require_mount("this test");
    served_instance emu;
    program client(emu.dir(), "session", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(client.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(client.call("connect 0") == "connect 0 NRT_SUCCESS");
    BOOST_TEST(client.call("connect 0") == "connect 0 NRT_INVALID");
    BOOST_TEST(client.call("connect 1") == "connect 1 NRT_INVALID", "core 1 is another process's to own");
    BOOST_TEST(client.call("connect -1") == "connect -1 NRT_INVALID");
    // The first client still works.
    BOOST_TEST(contains(emit(emu, 0, 1), "1 accepted"));
    BOOST_TEST(client.call("wait 0 1") == "wait 0 got=1");
    BOOST_TEST(client.call("close_stream 0") == "close_stream 0 done");
    BOOST_TEST(client.call("connect 0") == "connect 0 NRT_SUCCESS");
    BOOST_TEST(client.call("quit") == "quit");
    client.require_exit(0);

    const auto logged = log_lines(client.err());
    BOOST_TEST(logged.size() == 3u, client.err());
    BOOST_TEST(contains(client.err(), "already has a debug stream client"), client.err());
    for (const auto& l : logged) {
        BOOST_TEST(contains(l, "ERROR"), l);
        BOOST_TEST(contains(l, "NRT:nrt_debug_client_connect"), l);
    }
    emu.stop();
}

// NEURON_RT_DEBUG_STREAM_BUFFER_SIZE: a power of two (nrt-api.md §2.3),
// otherwise nrt_init fails and says which variable is wrong.
BOOST_AUTO_TEST_CASE(buffer_size_variable) {
    require_mount("this test");
    served_instance emu;
    for (const auto* value : {"1000", "0", "many"}) {
        program bad(emu.dir(), "session",
                    {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}, {"NEURON_RT_DEBUG_STREAM_BUFFER_SIZE", value}},
                     .control = emu.control()});
        const auto init = bad.call("init");
        BOOST_TEST(init.starts_with("init NRT_"), init);
        BOOST_TEST(init != "init NRT_SUCCESS visible=1");
        BOOST_TEST(bad.call("exit") == "exit");
        bad.require_exit(0);
        const auto logged = log_lines(bad.err());
        BOOST_TEST_REQUIRE(logged.size() == 1u, bad.err());
        BOOST_TEST(contains(logged[0], "NEURON_RT_DEBUG_STREAM_BUFFER_SIZE"), logged[0]);
        BOOST_TEST(contains(logged[0], "nrt_init"), logged[0]);
        BOOST_TEST(emu.status()["sessions"].size() == 0u, "a refused nrt_init holds no cores");
    }
    program small(emu.dir(), "session",
                  {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}, {"NEURON_RT_DEBUG_STREAM_BUFFER_SIZE", "4"}},
                   .control = emu.control()});
    BOOST_TEST(small.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(small.call("connect 0") == "connect 0 NRT_SUCCESS");
    const auto emitted = emit(emu, 0, 10, {"--dtype", "int32"});
    BOOST_TEST(contains(emitted, "10 emitted, 4 accepted, 6 dropped"), emitted);
    const auto stream = emu.stream_status(0);
    BOOST_TEST(stream["capacity"].as<std::uint64_t>() == 4u);
    BOOST_TEST(stream["dropped"].as<std::uint64_t>() == 6u);
    BOOST_TEST(small.call("drain 0") == "drain 0 count=4 in_order=1 end=NRT_QUEUE_EMPTY");
    BOOST_TEST(small.call("quit") == "quit");
    small.require_exit(0);
    emu.stop();
}

// A model's device prints are debug events on the model's core when an
// execution completes (runtime_shim/tests/models/printing.yaml); its copy
// and fill outputs arrive in the caller's tensors.
BOOST_AUTO_TEST_CASE(model_prints_arrive_on_the_models_core) {
    require_mount("this test");
    served_instance emu;
    program client(emu.dir(), "session", {.control = emu.control()});
    BOOST_TEST(client.call("init") == "init NRT_SUCCESS visible=2");
    BOOST_TEST(client.call("connect 0") == "connect 0 NRT_SUCCESS");
    BOOST_TEST(client.call("connect 1") == "connect 1 NRT_SUCCESS");
    BOOST_TEST(client.call("load p " + model_path("printing.yaml") + " 1") == "load p NRT_SUCCESS vnc=1");
    BOOST_TEST(client.call("alloc p") == "alloc p NRT_SUCCESS");
    BOOST_TEST(emu.core_counter(0, 1, "memory_usage/device_mem/model_code") == 65536u, "the model sits on core 1");
    BOOST_TEST(emu.core_counter(0, 1, "memory_usage/device_mem/tensors") == 3 * 4096u);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/device_mem") == 0u);
    for (int execution = 1; execution <= 2; ++execution) {
        BOOST_TEST(client.call("exec p") == "exec p NRT_SUCCESS");
        BOOST_TEST(client.call("wait 1 2") == "wait 1 got=2");
        const auto lines = client.lines();
        BOOST_TEST(lines[lines.size() - 3] ==
                   "event 1 nc=1 pipe=0 prefix=layer0 dtype=int32 shape=2,2 bytes=16 data=0,1,2,3");
        BOOST_TEST(lines[lines.size() - 2] ==
                   "event 1 nc=1 pipe=1 prefix=step dtype=uint32 shape=1 bytes=4 data=" + std::to_string(execution));
        BOOST_TEST(client.call("read 0") == "read 0 NRT_QUEUE_EMPTY", "the prints belong to core 1");
        BOOST_TEST(client.call("read 1") == "read 1 NRT_QUEUE_EMPTY");
    }
    BOOST_TEST(client.call("outputs p") == "outputs p y=100,101,102,103 z=7,7,7,7");
    BOOST_TEST(client.call("unload p") == "unload p NRT_SUCCESS");
    BOOST_TEST(client.call("quit") == "quit");
    client.require_exit(0);
    emu.ctl_ok({"status"});
    BOOST_TEST(emu.core_counter(0, 1, "status/success") == 2u);
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 0u);
    emu.stop();
}

BOOST_AUTO_TEST_SUITE_END()
