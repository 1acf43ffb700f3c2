// The hostile kinds that reach for other clients' data or the server's
// memory through the newer surfaces: debug streams of other sessions,
// labels, connections held by one process, profiles, idle NEFF uploads,
// NEFFs that cost work out of proportion, and collectives another process
// is waiting in. Each counts the refusals it gets, as it should get them.

#include "support/hostile_clients.h"

#include "neff_builder.h"

#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <thread>

namespace neuron::bench {
namespace {

using namespace protocol;

session_opened open_one(simple_client& c) {
    return c.call<session_opened>(message_type::open_session, open_session{1, core_selection::count, 0, 1},
                                  message_type::session_opened);
}

// Runs `request`; a refusal (an error reply or a closed connection) counts.
template <typename Request>
void expect_refusal(hostile_tally& tally, Request&& request) {
    try {
        request();
    } catch (const std::exception&) {
        ++tally.refusals;
    }
}

// Debug streams opened with guessed tokens: never another process's.
void stream_thief(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    static thread_local std::mt19937_64 random(7);
    simple_client runtime(socket, peer_role::runtime, "thief");
    const auto own = open_one(runtime);
    for (int i = 0; i < 8; ++i) {
        expect_refusal(tally, [&] {
            simple_client stream(socket, peer_role::debug_stream, "thief-stream");
            int memfd = -1;
            stream.call<empty_body>(message_type::open_stream, open_stream{random() ^ own.token, own.first, 16},
                                    message_type::stream_opened, &memfd);
            if (memfd >= 0) ::close(memfd);
        });
    }
}

void long_label(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    expect_refusal(tally, [&] { simple_client c(socket, peer_role::runtime, std::string(200 * 1024, '\x1b')); });
}

// More connections than one process may hold.
void connection_hog(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    std::vector<std::unique_ptr<simple_client>> held;
    for (int i = 0; i < 300; ++i) {
        expect_refusal(tally,
                       [&] { held.push_back(std::make_unique<simple_client>(socket, peer_role::control, "hog")); });
    }
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Profiled executions, then reads naming one profile many times.
void profile_hog(const std::string& socket, const std::string& models, const std::atomic<bool>&, hostile_tally& tally) {
    static const auto add = read_file(models + "/add.yaml");
    simple_client c(socket, peer_role::runtime, "profile-hog");
    open_one(c);
    const auto model = c.call<model_loaded>(message_type::load_model, load_model{-1, add}, message_type::model_loaded);
    const auto run =
        c.call<executed>(message_type::execute, execute{model.model_id, 1, 0, true}, message_type::executed);
    read_profile twice;
    twice.profile_ids.assign(max_profile_ids, run.profile_id);
    expect_refusal(tally, [&] { c.call<profile_data>(message_type::read_profile, twice, message_type::profile_data); });
}

// Uploads that declare a whole NEFF's size, send one piece and go idle
// until the server's idle timeout (60 s) has passed.
void upload_squatter(const std::string& socket, const std::string&, const std::atomic<bool>& stop,
                     hostile_tally& tally) {
    std::vector<std::unique_ptr<simple_client>> idle;
    for (int i = 0; i < 4; ++i) {
        idle.push_back(std::make_unique<simple_client>(socket, peer_role::runtime, "squatter"));
        open_one(*idle.back());
        expect_refusal(tally, [&] {
            idle.back()->call<empty_body>(message_type::model_piece,
                                          model_piece{std::uint64_t{4} << 30, 0, std::string(128 * 1024, 'N')},
                                          message_type::ok);
        });
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(65);
    while (!stop.load() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200)); // idling is the attack
    }
    for (auto& c : idle) {
        expect_refusal(tally, [&] {
            c->call<empty_body>(message_type::model_piece,
                                model_piece{std::uint64_t{4} << 30, 128 * 1024, std::string(128 * 1024, 'N')},
                                message_type::ok);
        });
    }
}

// NEFFs whose reading once cost work out of proportion: 64 graphs of one
// name, and a tar name of a mebibyte.
void neff_bombs(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    static const auto bombs = [] {
        auto shared = neff::testing::neff_builder::one_core_minimal();
        std::string graphs;
        for (int i = 0; i < 64; ++i) graphs += fmt::format("{}{{\"name\": \"sg00\"}}", i == 0 ? "" : ", ");
        shared.members["kelf-0.json"] = "{\"graphs\": [" + graphs + "]}";
        auto named = neff::testing::neff_builder::one_core_minimal();
        named.members["sg00/" + std::string(1 << 20, 'n') + ".json"] = "{}";
        return std::vector<std::string>{shared.bytes(), named.bytes()};
    }();
    simple_client c(socket, peer_role::runtime, "neff-bombs");
    open_one(c);
    for (const auto& neff : bombs) {
        expect_refusal(tally, [&] {
            std::size_t at = 0;
            for (; neff.size() - at > max_model_piece_bytes; at += max_model_piece_bytes) {
                c.call<empty_body>(message_type::model_piece,
                                   model_piece{neff.size(), at, neff.substr(at, max_model_piece_bytes)},
                                   message_type::ok);
            }
            c.call<model_loaded>(message_type::load_model, load_model{-1, neff.substr(at)}, message_type::model_loaded);
        });
    }
}

// A send to a core the intruder does not own, and a rank of a job it does
// not belong to: refused, or left to their timeout.
void collective_intruder(const std::string& socket, const std::string&, const std::atomic<bool>&,
                         hostile_tally& tally) {
    simple_client c(socket, peer_role::runtime, "intruder");
    const auto own = open_one(c);
    join_collective send;
    send.group = "sendrecv:0";
    send.kind = collective_kind::send_receive;
    send.ranks = 2;
    send.logical_core = own.first;
    send.peer_core = 0;
    send.timeout_ns = 1'000'000;
    send.transfer_bytes = 16;
    send.contribution = std::string(16, 'x');
    expect_refusal(tally, [&] {
        c.call<collective_joined>(message_type::join_collective, send, message_type::collective_joined);
    });
    join_collective gather;
    gather.group = "global/2";
    gather.kind = collective_kind::all_gather;
    gather.ranks = 2;
    gather.logical_core = own.first;
    gather.timeout_ns = 1'000'000;
    gather.contribution = "x";
    expect_refusal(tally, [&] {
        c.call<collective_joined>(message_type::join_collective, gather, message_type::collective_joined);
    });
}

} // namespace

std::vector<hostile_kind> intruder_kinds() {
    return {{"stream-thief", stream_thief},
            {"long-label", long_label},
            {"connection-hog", connection_hog},
            {"profile-hog", profile_hog},
            {"upload-squatter", upload_squatter},
            {"neff-bombs", neff_bombs},
            {"collective-intruder", collective_intruder}};
}

} // namespace neuron::bench
