#define BOOST_TEST_MODULE control_collectives
// Collectives and transfers over the socket, with a third process that
// knows the names the others use: it can neither stand in for a
// transfer's sender nor take a rank a job's process holds.

#include "support/server_harness.h"

using namespace neuron::control::testing;

namespace {

// A join_collective sent without waiting for its reply (it comes when the
// others arrived and time moved).
void send_join(simple_client& c, std::uint32_t request_id, join_collective body) {
    send_message(c.fd(), make_message(message_type::join_collective, request_id, std::move(body)));
}

join_collective piece(std::string group, std::uint32_t rank, std::uint32_t core, std::uint32_t peer,
                      std::uint64_t transfer, std::string bytes = {}) {
    join_collective j;
    j.group = std::move(group);
    j.kind = collective_kind::send_receive;
    j.rank = rank;
    j.ranks = 2;
    j.logical_core = core;
    j.peer_core = peer;
    j.timeout_ns = 1'000'000'000; // 1 s
    j.transfer_bytes = transfer;
    j.contribution = std::move(bytes);
    return j;
}

join_collective rank_of(std::string group, collective_kind kind, std::uint32_t rank, std::uint32_t core,
                        std::string bytes = {}) {
    join_collective j;
    j.group = std::move(group);
    j.kind = kind;
    j.rank = rank;
    j.ranks = 2;
    j.logical_core = core;
    j.timeout_ns = 1'000'000'000;
    j.contribution = std::move(bytes);
    return j;
}

reply answer(simple_client& c, std::uint32_t request_id) {
    auto r = next_reply(c.fd(), 10'000);
    BOOST_TEST_REQUIRE(r.has_value(), "no reply to request " << request_id);
    BOOST_TEST(r->header.request_id == request_id);
    return std::move(*r);
}

std::string gathered(const reply& r) {
    BOOST_TEST_REQUIRE(r.header.type == static_cast<std::uint16_t>(message_type::collective_joined));
    return body_of<collective_joined>(r).gathered;
}

error_reply refusal(const reply& r) {
    BOOST_TEST_REQUIRE(r.header.type == static_cast<std::uint16_t>(message_type::error));
    return body_of<error_reply>(r);
}

} // namespace

// The receive on logical core 1 named core 0 as its peer. The intruder owns
// core 2 and uses the very group the shim would: its send never reaches the
// receive (it waits alone until its timeout), nor may it claim core 0; the
// process that owns core 0 delivers.
BOOST_FIXTURE_TEST_CASE(a_receive_takes_bytes_only_from_the_core_it_named, server_fixture) {
    auto sender = runtime("sender"), receiver = runtime("receiver"), intruder = runtime("intruder");
    open_range(*sender, 0, 1);
    open_range(*receiver, 1, 1);
    open_range(*intruder, 2, 1);
    const std::string group = "sendrecv:0>1#0/0";
    send_join(*receiver, 1, piece(group, 1, 1, 0, 3));
    send_join(*intruder, 2, piece(group, 0, 2, 1, 3, "bad"));
    send_join(*intruder, 3, piece(group, 0, 0, 1, 3, "bad")); // a core it does not own
    const auto not_owned = refusal(answer(*intruder, 3));
    BOOST_TEST(not_owned.code == nrt_status::invalid);
    BOOST_TEST(not_owned.message.find("not owned by this process") != std::string::npos, not_owned.message);
    advance(1ms);
    BOOST_TEST(quiet(*receiver));
    send_join(*sender, 4, piece(group, 0, 0, 1, 3, "abc"));
    advance(1ms);
    BOOST_TEST(gathered(answer(*receiver, 1)) == "abc");
    BOOST_TEST(gathered(answer(*sender, 4)) == "abc");
    advance(1s);
    BOOST_TEST(refusal(answer(*intruder, 2)).code == nrt_status::exec_hw_err_collectives);
}

// A send of 32 bytes and a receive of 16: both are told, and nothing moves.
BOOST_FIXTURE_TEST_CASE(a_size_mismatch_is_an_error_on_both_sides, server_fixture) {
    auto sender = runtime("sender"), receiver = runtime("receiver");
    open_range(*sender, 0, 1);
    open_range(*receiver, 1, 1);
    send_join(*receiver, 1, piece("p", 1, 1, 0, 16));
    send_join(*sender, 2, piece("p", 0, 0, 1, 32, std::string(32, 'x')));
    advance(1ns);
    for (auto [client, id] : {std::pair{receiver.get(), 1u}, std::pair{sender.get(), 2u}}) {
        const auto e = refusal(answer(*client, id));
        BOOST_TEST(e.code == nrt_status::invalid);
        BOOST_TEST(e.message.find("a send of 32 bytes from NeuronCore 0 met a receive of 16 bytes on NeuronCore 1") !=
                       std::string::npos,
                   e.message);
    }
}

// A job's two processes met in a barrier; the intruder, knowing the
// group's name, arrives for rank 1 of the next all-gather before the real
// rank 1 does: it is refused by name and the job's all-gather completes
// with the job's data.
BOOST_FIXTURE_TEST_CASE(a_rank_a_jobs_process_holds_is_refused_to_another, server_fixture) {
    auto a = runtime("rank0"), b = runtime("rank1"), intruder = runtime("intruder");
    open_range(*a, 0, 1);
    open_range(*b, 1, 1);
    open_range(*intruder, 2, 1);
    const std::string group = "127.0.0.1:5000/global/2";
    send_join(*a, 1, rank_of(group, collective_kind::barrier, 0, 0));
    send_join(*b, 2, rank_of(group, collective_kind::barrier, 1, 1));
    advance(1ms);
    answer(*a, 1);
    answer(*b, 2);
    send_join(*a, 3, rank_of(group, collective_kind::all_gather, 0, 0, "A"));
    send_join(*intruder, 4, rank_of(group, collective_kind::all_gather, 1, 2, "I"));
    const auto e = refusal(answer(*intruder, 4));
    BOOST_TEST(e.code == nrt_status::invalid);
    BOOST_TEST(e.message.find("rank 1 of '" + group + "' belongs to another process") != std::string::npos, e.message);
    send_join(*b, 5, rank_of(group, collective_kind::all_gather, 1, 1, "B"));
    advance(1ms);
    BOOST_TEST(gathered(answer(*a, 3)) == "AB");
    BOOST_TEST(gathered(answer(*b, 5)) == "AB");
}
