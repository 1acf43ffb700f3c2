#define BOOST_TEST_MODULE collectives
#include "neuron/model/runtime/api.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "sim_helpers.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

// Collectives among runtime sessions, through the model's API in stepped
// time: who meets whom, what each rank gets, when, and what a missing or
// vanished rank does to the others.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

struct instance {
    explicit instance(std::string name) : sim(stepped(std::move(name))), model(sim) {}

    owner_id open(std::uint32_t first, std::uint32_t count) {
        session_request r;
        r.label = "rank";
        r.selection = core_selection::range;
        r.first = first;
        r.count = count;
        return model.open_session(r).owner;
    }

    simulation sim;
    api model;
};

struct answers {
    std::vector<collective_outcome> got;
    collective_done record() {
        return [this](const collective_outcome& o) { got.push_back(o); };
    }
};

collective_arrival rank(std::string group, collective_kind kind, std::uint32_t r, std::uint32_t ranks,
                        std::vector<std::uint8_t> contribution = {}, std::chrono::nanoseconds timeout = 1s) {
    collective_arrival a;
    a.group = std::move(group);
    a.kind = kind;
    a.rank = r;
    a.ranks = ranks;
    a.contribution = std::move(contribution);
    a.timeout = timeout;
    return a;
}

// A piece of a transfer from core `from` to core `to`: the sender's (rank 0,
// with `bytes`) or the receiver's (rank 1, none), each naming the other's core.
collective_arrival piece(std::string group, std::uint32_t r, std::uint32_t from, std::uint32_t to,
                         std::uint64_t transfer, std::vector<std::uint8_t> bytes = {}, std::uint64_t offset = 0) {
    auto a = rank(std::move(group), collective_kind::send_receive, r, 2, std::move(bytes));
    a.peer_core = r == 0 ? to : from;
    a.transfer_bytes = transfer;
    a.offset = offset;
    return a;
}

template <typename Error>
auto says(std::string text) {
    return [text = std::move(text)](const Error& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

// The model rounds a collective's cost up to whole nanoseconds.
std::chrono::nanoseconds ns(double value) {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(std::ceil(value)));
}

} // namespace

// Two processes on neighbouring trn1 devices: each gets both contributions
// in rank order, one ring step after the second arrived (a hop's latency and
// the bytes at one DMA engine's rate), not before.
BOOST_AUTO_TEST_CASE(an_all_gather_gives_every_rank_all_contributions_after_the_ring_step) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 2); // device 0
    const auto b = i.open(2, 2); // device 1, a torus neighbour of 0
    const std::vector<std::uint8_t> mine(4096, 1), theirs(4096, 2);
    answers ra, rb;
    i.model.join_collective(b, 2, rank("global", collective_kind::all_gather, 1, 2, theirs), rb.record());
    i.sim.advance(10us);
    BOOST_TEST(rb.got.empty()); // alone, it waits
    i.model.join_collective(a, 0, rank("global", collective_kind::all_gather, 0, 2, mine), ra.record());

    const auto rate = static_cast<double>(find_instance_type("trn1.32xlarge").spec().dma_bytes_per_ns);
    const auto step = ns(static_cast<double>(collective_step_latency.count()) + 4096.0 / rate);
    i.sim.advance(step - 1ns);
    BOOST_TEST(ra.got.empty());
    i.sim.advance(1ns);
    BOOST_TEST_REQUIRE(ra.got.size() == 1u);
    BOOST_TEST_REQUIRE(rb.got.size() == 1u);
    BOOST_TEST(ra.got[0].status == nrt_status::success);
    std::vector<std::uint8_t> both(mine);
    both.insert(both.end(), theirs.begin(), theirs.end());
    BOOST_TEST(ra.got[0].gathered == both);
    BOOST_TEST(rb.got[0].gathered == both);
}

// A barrier of three ranks on one device: 2(n-1) steps of the latency; the
// same group's next barrier is a new operation.
BOOST_AUTO_TEST_CASE(a_barrier_releases_everyone_together_and_groups_are_reused) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1), c = i.open(2, 1);
    answers r;
    for (int round = 0; round < 2; ++round) {
        i.model.join_collective(a, 0, rank("g", collective_kind::barrier, 0, 3), r.record());
        i.model.join_collective(b, 1, rank("g", collective_kind::barrier, 1, 3), r.record());
        i.model.join_collective(c, 2, rank("g", collective_kind::barrier, 2, 3), r.record());
    }
    // Ranks 0 and 1 share device 0, rank 2 is on device 1 (one hop): every
    // step is one latency.
    i.sim.advance(collective_step_latency * 4 - 1ns);
    BOOST_TEST(r.got.empty());
    i.sim.advance(1ns);
    BOOST_TEST(r.got.size() == 6u); // both rounds were complete when they arrived
    for (const auto& o : r.got) BOOST_TEST(o.status == nrt_status::success);
}

// A rank that never comes: the others end in the collectives-hang status at
// their timeout, not before.
BOOST_AUTO_TEST_CASE(a_missing_rank_ends_in_the_collectives_hang_status_at_the_timeout) {
    instance i("trn1.2xlarge");
    const auto a = i.open(0, 1);
    answers r;
    i.model.join_collective(a, 0, rank("g", collective_kind::barrier, 0, 2, {}, 5ms), r.record());
    i.sim.advance(5ms - 1ns);
    BOOST_TEST(r.got.empty());
    i.sim.advance(1ns);
    BOOST_TEST_REQUIRE(r.got.size() == 1u);
    BOOST_TEST(r.got[0].status == nrt_status::exec_hw_err_collectives);
    BOOST_TEST(r.got[0].message.find("1 of 2 ranks of 'g'") != std::string::npos, r.got[0].message);
}

// A process that closes while waiting leaves (told NRT_CLOSED); the one still
// there times out.
BOOST_AUTO_TEST_CASE(a_vanished_rank_is_forgotten_and_the_rest_time_out) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1);
    answers ra, rb;
    i.model.join_collective(a, 0, rank("g", collective_kind::barrier, 0, 3, {}, 1ms), ra.record());
    i.model.join_collective(b, 1, rank("g", collective_kind::barrier, 1, 3, {}, 1ms), rb.record());
    i.model.close_session(b);
    BOOST_TEST_REQUIRE(rb.got.size() == 1u);
    BOOST_TEST(rb.got[0].status == nrt_status::closed);
    i.sim.advance(1ms);
    BOOST_TEST(rb.got.size() == 1u);
    BOOST_TEST_REQUIRE(ra.got.size() == 1u);
    BOOST_TEST(ra.got[0].status == nrt_status::exec_hw_err_collectives);
}

// A send moves the sender's bytes to the receiver in one step.
BOOST_AUTO_TEST_CASE(a_send_delivers_the_bytes_to_the_receiver) {
    instance i("trn1.2xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1);
    answers r;
    i.model.join_collective(b, 1, piece("p2p", 1, 0, 1, 3), r.record());
    i.model.join_collective(a, 0, piece("p2p", 0, 0, 1, 3, {7, 8, 9}), r.record());
    i.sim.advance(1ms);
    BOOST_TEST_REQUIRE(r.got.size() == 2u);
    BOOST_TEST((r.got[0].gathered == std::vector<std::uint8_t>{7, 8, 9}));
}

// The attack of issue 35: a process that knows a transfer's group sends to
// the receiver's core from a core of its own. The receive named core 0 as
// its peer: it never meets the intruder, only the process that owns core 0;
// the intruder waits alone until its timeout.
BOOST_AUTO_TEST_CASE(a_receive_meets_only_a_send_from_the_core_it_named) {
    instance i("trn1.32xlarge");
    const auto sender = i.open(0, 1), receiver = i.open(1, 1), intruder = i.open(2, 1);
    answers r, intruded;
    i.model.join_collective(receiver, 1, piece("sendrecv#0/0", 1, 0, 1, 3), r.record());
    i.model.join_collective(intruder, 2, piece("sendrecv#0/0", 0, 2, 1, 3, {6, 6, 6}), intruded.record());
    i.sim.advance(1ms);
    BOOST_TEST(r.got.empty());
    i.model.join_collective(sender, 0, piece("sendrecv#0/0", 0, 0, 1, 3, {7, 8, 9}), r.record());
    i.sim.advance(1ms);
    BOOST_TEST_REQUIRE(r.got.size() == 2u);
    for (const auto& o : r.got) {
        BOOST_TEST(o.status == nrt_status::success);
        BOOST_TEST((o.gathered == std::vector<std::uint8_t>{7, 8, 9}));
    }
    BOOST_TEST(intruded.got.empty());
    i.sim.advance(1s);
    BOOST_TEST_REQUIRE(intruded.got.size() == 1u);
    BOOST_TEST(intruded.got[0].status == nrt_status::exec_hw_err_collectives);
}

// A send of 32 bytes meets a receive of 16: both fail at once with
// NRT_INVALID and the reason (none is cut short and called a success).
BOOST_AUTO_TEST_CASE(a_send_and_a_receive_of_different_sizes_both_fail) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1);
    answers r;
    i.model.join_collective(b, 1, piece("p2p", 1, 0, 1, 16), r.record());
    i.model.join_collective(a, 0, piece("p2p", 0, 0, 1, 32, std::vector<std::uint8_t>(32, 1)), r.record());
    i.sim.advance(1ns); // at once: nothing moves
    BOOST_TEST_REQUIRE(r.got.size() == 2u);
    for (const auto& o : r.got) {
        BOOST_TEST(o.status == nrt_status::invalid);
        BOOST_TEST(o.gathered.empty());
        BOOST_TEST(o.message.find("a send of 32 bytes from NeuronCore 0 met a receive of 16 bytes on NeuronCore 1") !=
                       std::string::npos,
                   o.message);
    }
}

// What a transfer's side may not say: a piece past its length, bytes from
// a receive, a peer past the instance's last core.
BOOST_AUTO_TEST_CASE(impossible_pieces_are_refused_by_name) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1);
    answers r;
    BOOST_CHECK_EXCEPTION(i.model.join_collective(a, 0, piece("p", 0, 0, 1, 2, {1, 2, 3}), r.record()),
                          invalid_argument_error, says<invalid_argument_error>("ends past its transfer of 2 bytes"));
    BOOST_CHECK_EXCEPTION(i.model.join_collective(a, 0, piece("p", 0, 0, 1, 8, {1}, 9), r.record()),
                          invalid_argument_error, says<invalid_argument_error>("ends past"));
    auto talking = piece("p", 1, 1, 0, 8);
    talking.contribution = {1};
    BOOST_CHECK_EXCEPTION(i.model.join_collective(a, 0, talking, r.record()), invalid_argument_error,
                          says<invalid_argument_error>("a receive sends nothing"));
    BOOST_CHECK_THROW(i.model.join_collective(a, 0, piece("p", 0, 0, 99, 0), r.record()), invalid_argument_error);
    BOOST_TEST(r.got.empty());
}

BOOST_AUTO_TEST_CASE(bad_arrivals_are_refused_by_name) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1);
    answers r;
    BOOST_CHECK_THROW(i.model.join_collective(a, 0, rank("g", collective_kind::barrier, 2, 2), r.record()),
                      invalid_argument_error);
    BOOST_CHECK_THROW(i.model.join_collective(a, 5, rank("g", collective_kind::barrier, 0, 2), r.record()),
                      invalid_argument_error); // not its core
    BOOST_CHECK_THROW(i.model.join_collective(a, 0, rank("g", collective_kind::barrier, 0, 2, {}, -1ns), r.record()),
                      invalid_argument_error);
    BOOST_CHECK_THROW(i.model.join_collective(a, 0, rank("g", collective_kind::barrier, 0, 33), r.record()),
                      invalid_argument_error); // trn1.32xlarge has 32 NeuronCores
    i.model.join_collective(a, 0, rank("g", collective_kind::all_gather, 0, 2, {1, 2}), r.record());
    try {
        i.model.join_collective(b, 1, rank("g", collective_kind::all_gather, 1, 2, {1, 2, 3}), r.record());
        BOOST_FAIL("a contribution of another size was taken");
    } catch (const invalid_argument_error& e) {
        BOOST_TEST(std::string(e.what()).find(
                       "with 3 bytes; the others started a all-gather of 2 ranks with 2 bytes") != std::string::npos,
                   e.what());
    }
    BOOST_TEST(r.got.empty());
}

// The attack of issue 35: a process that knows a job's group arrives for a
// rank the job's own process holds (from the barrier before). It is refused
// by name, and the job's all-gather completes with the job's data.
BOOST_AUTO_TEST_CASE(a_rank_another_process_holds_is_refused_and_the_group_goes_on) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1), intruder = i.open(2, 1);
    answers r, refused;
    i.model.join_collective(a, 0, rank("job/g", collective_kind::barrier, 0, 2), r.record());
    i.model.join_collective(b, 1, rank("job/g", collective_kind::barrier, 1, 2), r.record());
    i.sim.advance(1ms);
    BOOST_TEST_REQUIRE(r.got.size() == 2u);
    i.model.join_collective(a, 0, rank("job/g", collective_kind::all_gather, 0, 2, {1}), r.record());
    try {
        i.model.join_collective(intruder, 2, rank("job/g", collective_kind::all_gather, 1, 2, {66}), refused.record());
        BOOST_FAIL("the intruder took rank 1");
    } catch (const invalid_argument_error& e) {
        BOOST_TEST(std::string(e.what()).find("rank 1 of 'job/g' belongs to another process") != std::string::npos,
                   e.what());
    }
    i.model.join_collective(b, 1, rank("job/g", collective_kind::all_gather, 1, 2, {2}), r.record());
    i.sim.advance(1ms);
    BOOST_TEST_REQUIRE(r.got.size() == 4u);
    for (std::size_t k = 2; k < 4; ++k) {
        BOOST_TEST(r.got[k].status == nrt_status::success);
        BOOST_TEST((r.got[k].gathered == std::vector<std::uint8_t>{1, 2}));
    }
    BOOST_TEST(refused.got.empty());
}

// A group's name is the client's: a message quoting it keeps it one line.
BOOST_AUTO_TEST_CASE(a_group_name_is_escaped_where_a_refusal_quotes_it) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1);
    answers r;
    i.model.join_collective(a, 0, rank("job\n\x1b[2J", collective_kind::barrier, 0, 2), r.record());
    BOOST_CHECK_EXCEPTION(
        i.model.join_collective(b, 1, rank("job\n\x1b[2J", collective_kind::barrier, 0, 2), r.record()),
        invalid_argument_error, says<invalid_argument_error>("rank 0 of 'job\\n\\x1b[2J'"));
}

// Processes of different users never meet, whatever their groups are
// called: another user's process arriving first takes nothing of the job's.
BOOST_AUTO_TEST_CASE(ranks_of_different_users_never_meet) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1), other = i.open(2, 1);
    answers job, outsider;
    auto as_user = [](collective_arrival arrival, std::uint32_t user) {
        arrival.user = user;
        return arrival;
    };
    i.model.join_collective(other, 2, as_user(rank("g", collective_kind::all_gather, 1, 2, {66}), 2000),
                            outsider.record());
    i.model.join_collective(a, 0, as_user(rank("g", collective_kind::all_gather, 0, 2, {1}), 1000), job.record());
    i.model.join_collective(b, 1, as_user(rank("g", collective_kind::all_gather, 1, 2, {2}), 1000), job.record());
    i.sim.advance(1ms);
    BOOST_TEST_REQUIRE(job.got.size() == 2u);
    BOOST_TEST((job.got[0].gathered == std::vector<std::uint8_t>{1, 2}));
    BOOST_TEST(outsider.got.empty()); // waits for a rank 0 of its own user
    i.sim.advance(1s);
    BOOST_TEST_REQUIRE(outsider.got.size() == 1u);
    BOOST_TEST(outsider.got[0].status == nrt_status::exec_hw_err_collectives);
}

// A rank is its process's until that process's session ends: then a new
// process (a restarted worker) takes it.
BOOST_AUTO_TEST_CASE(a_rank_is_free_again_once_its_process_closed) {
    instance i("trn1.32xlarge");
    const auto a = i.open(0, 1), b = i.open(1, 1);
    answers r;
    i.model.join_collective(a, 0, rank("g", collective_kind::barrier, 0, 2), r.record());
    i.model.join_collective(b, 1, rank("g", collective_kind::barrier, 1, 2), r.record());
    i.sim.advance(1ms);
    i.model.close_session(b);
    const auto restarted = i.open(1, 1);
    i.model.join_collective(a, 0, rank("g", collective_kind::barrier, 0, 2), r.record());
    i.model.join_collective(restarted, 1, rank("g", collective_kind::barrier, 1, 2), r.record());
    i.sim.advance(1ms);
    BOOST_TEST_REQUIRE(r.got.size() == 4u);
    for (const auto& o : r.got) BOOST_TEST(o.status == nrt_status::success);
}

// Ranks taken are kept until the session ends, so how many groups one
// process holds ranks in is bounded too.
BOOST_AUTO_TEST_CASE(a_process_holds_ranks_in_at_most_256_groups) {
    instance i("trn1.2xlarge");
    const auto a = i.open(0, 1);
    answers r;
    for (std::size_t g = 0; g < max_groups_per_owner; ++g) {
        i.model.join_collective(a, 0, rank("g" + std::to_string(g), collective_kind::barrier, 0, 1), r.record());
    }
    BOOST_CHECK_THROW(i.model.join_collective(a, 0, rank("one more", collective_kind::barrier, 0, 1), r.record()),
                      resource_busy_error);
    i.model.join_collective(a, 0, rank("g0", collective_kind::barrier, 0, 1), r.record()); // one it holds
    i.sim.advance(1ms);
    BOOST_TEST(r.got.size() == max_groups_per_owner + 1);
}

// One process cannot pile up collectives in the emulator without bound.
BOOST_AUTO_TEST_CASE(a_process_has_at_most_256_collectives_waiting) {
    instance i("trn1.2xlarge");
    const auto a = i.open(0, 1);
    answers r;
    for (std::size_t g = 0; g < max_waiting_per_owner; ++g) {
        i.model.join_collective(a, 0, rank("g" + std::to_string(g), collective_kind::barrier, 0, 2), r.record());
    }
    BOOST_CHECK_THROW(i.model.join_collective(a, 0, rank("one more", collective_kind::barrier, 0, 2), r.record()),
                      resource_busy_error);
    i.sim.advance(1s); // their timeouts pass: room again (in a group it holds a rank of)
    BOOST_TEST(r.got.size() == max_waiting_per_owner);
    i.model.join_collective(a, 0, rank("g0", collective_kind::barrier, 0, 2), r.record());
}
