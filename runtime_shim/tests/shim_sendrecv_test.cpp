#define BOOST_TEST_MODULE shim_sendrecv
// Transfers between two processes' NeuronCores end to end
// (nrt_async_sendrecv_*): what each side is told when the two disagree on
// the size, and a receive's tensor freed while the receive is pending.

#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::shim::testing;

namespace {

program side(served_instance& emu, const std::string& mode, int core, int peer, const std::string& bytes,
             std::map<std::string, std::string> env = {}) {
    env.emplace("NEURON_RT_VISIBLE_CORES", std::to_string(core));
    std::vector<std::string> args{mode, std::to_string(peer)};
    if (!bytes.empty()) args.push_back(bytes);
    return program(emu.dir(), "sendrecv", {.args = args, .env = env, .control = emu.control()});
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_sendrecv, diagnostics)

// The same bytes arrive as sent, across more than one piece.
BOOST_AUTO_TEST_CASE(a_receive_of_the_senders_size_gets_its_bytes) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge"});
    auto sender = side(emu, "send", 0, 1, "300000");
    auto receiver = side(emu, "receive", 1, 0, "300000");
    BOOST_TEST(sender.until("sent") == "sent NRT_SUCCESS 300000");
    BOOST_TEST(receiver.until("received") == "received NRT_SUCCESS 300000 1");
    sender.require_exit(0);
    receiver.require_exit(0);
}

// A send of 8 MiB meets a receive of 16 bytes: both fail (NRT_FAILURE,
// test_request's status for it) with a line giving both sizes, and nothing
// was moved: neither is cut short and called a success, and no piece past
// the first travels.
BOOST_AUTO_TEST_CASE(a_size_mismatch_fails_both_sides) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge"});
    auto sender = side(emu, "send", 0, 1, "8388608");
    auto receiver = side(emu, "receive", 1, 0, "16");
    BOOST_TEST(sender.until("sent") == "sent NRT_FAILURE 0");
    BOOST_TEST(receiver.until("received") == "received NRT_FAILURE 0 0");
    sender.require_exit(0);
    receiver.require_exit(0);
    for (auto* p : {&sender, &receiver}) {
        BOOST_TEST(contains(p->err(), "NRT:nrt_async_sendrecv  a send of 8388608 bytes from NeuronCore 0 met a "
                                      "receive of 16 bytes on NeuronCore 1: the sizes must match"),
                   p->err());
    }
}

// nrt_tensor_free of a tensor a receive is pending on waits until the
// receive ended (here at its 5 s timeout, no byte having been sent), as the
// runtime's tensor calls wait for a pending execution: the peer's bytes can
// never land in freed memory. The timeout bounds the receiver's connect too,
// so it must outlast the sender's start on a loaded machine (1 s did not).
BOOST_AUTO_TEST_CASE(freeing_a_tensor_a_receive_is_pending_on_waits_for_the_receive) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge"});
    auto sender = side(emu, "hold", 0, 1, "");
    auto receiver = side(emu, "free", 1, 0, "4096", {{"NEURON_RT_EXEC_TIMEOUT", "5"}});
    BOOST_TEST(receiver.until("freed") == "freed 1");
    BOOST_TEST(receiver.until("received") == "received NRT_TIMEOUT 0");
    receiver.require_exit(0);
    BOOST_TEST(sender.until("connected") == "connected");
    sender.send("done");
    sender.require_exit(0);
}

BOOST_AUTO_TEST_SUITE_END()
