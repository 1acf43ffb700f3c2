#define BOOST_TEST_MODULE serve_neff
// `neuron-emu serve` stops on SIGTERM whatever its NEFF thread is doing.
// The finding: a NEFF that took its thread 35 minutes kept serve running
// after SIGTERM for as long. Here a NEFF whose reading takes minutes (15 GiB
// of zeros in deflate's densest form, then 64 graphs sharing a name over
// 16 MiB of JSON) is being read when the signal comes; serve must end at
// once. The fence: a request sent after the load on the same connection is
// answered, so the load has been handed to the NEFF thread. Plain files
// (--materialize): needs neither FUSE nor root.

#include "support/process_harness.h"

#include "neff_builder.h"

#include "neuron/protocol/simple_client.h"

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

using namespace neuron::cli::testing;
using namespace neuron::protocol;
namespace t = neuron::neff::testing;

namespace {

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

// A NEFF that takes minutes to read without a stop: the matmul, 64 graphs
// named sg00 whose def.json holds 16 MiB of JSON, and 15 GiB of zeros.
std::string slow_neff() {
    auto b = t::neff_builder::two_core_matmul();
    b.members["sg00/def.json"].insert(1, "\"pad\": \"" + std::string(16 << 20, 'p') + "\", ");
    std::string graphs;
    for (int i = 0; i < 64; ++i) graphs += std::string(i == 0 ? "" : ", ") + R"({"name": "sg00"})";
    b.members["kelf-0.json"] = R"({"graphs": [)" + graphs + "]}";
    auto tar = b.tar();
    tar.resize(tar.size() - 2 * t::tar_block);
    std::vector<t::gzip_part> parts{{tar, 0}};
    for (int i = 0; i < 15; ++i) {
        parts.back().text += t::tar_header("debug_info/zeros" + std::to_string(i), gib);
        parts.back().zeros = gib;
        parts.push_back({});
    }
    parts.back().text = t::tar_end();
    return t::wrap(t::zeros_gzip(parts));
}

} // namespace

BOOST_AUTO_TEST_CASE(sigterm_ends_serve_while_a_neff_is_being_read) {
    temp_dir tmp("serve-neff");
    const auto socket = tmp / "control.sock";
    emulator serve({"serve", "--instance", "trn1.2xlarge", "--materialize", tmp / "tree", "--control", socket, "--time",
                    "stepped"},
                   {.stderr_path = tmp / "stderr"});
    serve.require_ready();

    const auto bytes = slow_neff();
    BOOST_TEST_MESSAGE("the NEFF: " << bytes.size() << " bytes");
    simple_client client(socket, peer_role::runtime, "slow-neff", 60'000);
    client.call<session_opened>(message_type::open_session, open_session{1, core_selection::range, 0, 1},
                                message_type::session_opened);
    std::size_t at = 0;
    for (; bytes.size() - at > max_model_piece_bytes; at += max_model_piece_bytes) {
        client.call<empty_body>(message_type::model_piece,
                                model_piece{bytes.size(), at, bytes.substr(at, max_model_piece_bytes)},
                                message_type::ok);
    }
    send_message(client.fd(), make_message(message_type::load_model, 77, load_model{-1, bytes.substr(at), 0, false}));
    // Answered after the load was handled: the NEFF thread has it.
    client.call<instance_description>(message_type::describe_instance, empty_body{},
                                      message_type::instance_description);

    serve.signal(SIGTERM);
    serve.require_exit(0); // within 20 s; reading the NEFF to its end takes minutes
    // The load was never answered: its reading stopped with the server.
    for (;;) {
        std::optional<received_message> message;
        try {
            message = receive_message(client.fd(), 10'000);
        } catch (const connection_error&) {
            break; // closed
        }
        BOOST_TEST_REQUIRE(message.has_value(), "the connection stays open after serve ended");
        const auto header = decode_header(message->bytes.data(), message->bytes.size());
        BOOST_TEST(header.request_id != 77u, "the load was answered: type " << header.type);
    }
}
