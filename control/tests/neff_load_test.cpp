#define BOOST_TEST_MODULE neff_load
// A NEFF as the control server loads it: what define_neff makes of what the
// reader read (tensors, memory per graph, stream work), the runtime's
// scratchpad layout per generation and LNC, and over the socket: a NEFF
// sent in model_pieces loads, a broken one is refused naming what is wrong
// and leaves no pieces behind.

#include "neff_builder.h"
#include "neuron/control/neff_model.h"
#include "neuron/control/runtime_service.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/spec/nrt_status.h"
#include "support/server_harness.h"

#include <boost/test/unit_test.hpp>

using namespace neuron;
using namespace neuron::control::testing;
using neuron::neff::testing::neff_builder;
using protocol::tensor_usage;

namespace {

constexpr std::uint64_t mib = 1 << 20;

const neff::neff_info matmul = neff::read_neff(neff_builder::two_core_matmul().bytes());

// The matmul with its sg00 scratchpad at 96 MiB + 8 KiB.
std::string big_scratchpad_matmul() {
    auto b = neff_builder::two_core_matmul();
    auto& def = b.members["sg00/def.json"];
    const std::string from = R"("backing_variable_off": 65536)";
    def.replace(def.find(from), from.size(), R"("backing_variable_off": 100663296)");
    return b.bytes();
}

std::uint64_t need(const control::model_definition& m, model::mem_type type, std::uint32_t core, bool shared = false) {
    std::uint64_t bytes = 0;
    for (const auto& n : m.memory) {
        if (n.type == type && n.core == core && n.shared == shared) bytes += n.bytes;
    }
    return bytes;
}

// Incompressible bytes, so that a NEFF holding them needs several pieces.
std::string noise(std::size_t n) {
    std::string s(n, '\0');
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (auto& c : s) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c = static_cast<char>(x);
    }
    return s;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_neff_defines_its_tensors_memory_and_work) {
    const auto m = control::define_neff(matmul, {});
    BOOST_TEST(m.name == "matmul.neff");
    BOOST_TEST_REQUIRE(m.tensors.size() == 3u);
    BOOST_TEST(m.tensors[0].name == "x");
    BOOST_TEST(m.tensors[1].name == "y");
    BOOST_TEST(m.tensors[2].name == "output0");
    BOOST_TEST((m.tensors[2].usage == tensor_usage::output));
    BOOST_TEST(m.tensors[0].dtype == 7u, "float16 is NRT_DTYPE_FLOAT16");
    BOOST_TEST(m.tensors[0].size == 65536u);
    BOOST_TEST((m.tensors[0].shape == std::vector<std::uint64_t>{128, 256}));
    using model::mem_type;
    BOOST_TEST(need(m, mem_type::code_device, 0) == 3936u);
    BOOST_TEST(need(m, mem_type::code_device, 1) == 4384u);
    BOOST_TEST(need(m, mem_type::constants_device, 1) == 32768u + 512u);
    BOOST_TEST(need(m, mem_type::scratchpad_device, 0, true) == 64 * mib);
    BOOST_TEST(need(m, mem_type::scratchpad_device, 0, false) == 0u, "the scratchpad is shared");
    BOOST_TEST(need(m, mem_type::dma_rings_device, 1) == 3u * 16 * 16);
    BOOST_TEST(m.streams.cores == 2u);
    BOOST_TEST(m.streams.macs == 4194304u);
    BOOST_TEST(m.streams.traffic_bytes == 262144u);
    const std::uint64_t busiest[] = {16, 3, 5, 8, 4}; // per engine, the longer of the two graphs' streams
    for (std::size_t e = 0; e < model::engine_count; ++e) BOOST_TEST(m.streams.instructions[e] == busiest[e]);
}

BOOST_AUTO_TEST_CASE(neff_dtypes_take_nrts_numbers_or_unknown) {
    BOOST_TEST(control::nrt_dtype_of("float32") == 0xAu);
    BOOST_TEST(control::nrt_dtype_of("bfloat16") == 0x6u);
    BOOST_TEST(control::nrt_dtype_of("float8_e4m3") == 0xEu);
    BOOST_TEST(control::nrt_dtype_of("float8e5m2") == 0xFu);
    BOOST_TEST(control::nrt_dtype_of("int64") == 0xCu);
    BOOST_TEST(control::nrt_dtype_of("bool") == 0u);
    BOOST_TEST(control::nrt_dtype_of("float64") == 0u);
}

BOOST_AUTO_TEST_CASE(the_scratchpad_layout_follows_the_generation_lnc_and_environment) {
    const auto& trn1 = model::find_instance_type("trn1.2xlarge");
    const auto& trn2 = model::find_instance_type("trn2.48xlarge");
    BOOST_TEST(control::scratchpad_layout_for(trn1, 1, false, 0).contiguous);
    BOOST_TEST(control::scratchpad_layout_for(trn2, 2, false, 0).contiguous);
    BOOST_TEST(!control::scratchpad_layout_for(trn2, 1, false, 0).contiguous, "Trn2 with LNC=1 has no contiguous one");
    BOOST_TEST(!control::scratchpad_layout_for(trn1, 1, true, 0).contiguous, "NEURON_RT_CONTIGUOUS_SCRATCHPAD=0");
    BOOST_TEST(control::scratchpad_layout_for(trn2, 1, false, 0).page_bytes == 512 * mib);
    BOOST_TEST(control::scratchpad_layout_for(trn2, 1, false, 2048).page_bytes == 2048 * mib);
    for (const std::uint32_t bad : {1000u, 256u, 4096u, 8192u}) {
        BOOST_CHECK_EXCEPTION(control::scratchpad_layout_for(trn2, 1, false, bad), control::request_error,
                              [](const control::request_error& e) {
                                  return e.status() == model::nrt_status::invalid &&
                                         std::string(e.what()).find("a multiple of 512 MiB below 4096") !=
                                             std::string::npos;
                              });
    }
    BOOST_CHECK_NO_THROW(control::scratchpad_layout_for(trn1, 1, false, 1000)); // contiguous: the size does not apply
    BOOST_CHECK_EXCEPTION(control::scratchpad_layout_for(trn2, 1, false, protocol::unreadable_page_size),
                          control::request_error, [](const control::request_error& e) {
                              return std::string(e.what()).find("not a whole number of MiB") != std::string::npos;
                          });
    // Paged: the high-water mark rounds up to the page.
    const auto m = control::define_neff(matmul, control::scratchpad_layout_for(trn2, 1, false, 0));
    BOOST_TEST(need(m, model::mem_type::scratchpad_device, 0, true) == 512 * mib);
}

BOOST_FIXTURE_TEST_CASE(a_neff_in_pieces_loads_and_charges_each_physical_core, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1); // LNC=2: physical cores 0 and 1 of device 0
    auto b = neff_builder::two_core_matmul();
    b.members["debug_info/noise.dbg"] = noise(3 * protocol::max_model_piece_bytes);
    const auto bytes = b.bytes();
    BOOST_TEST_REQUIRE(bytes.size() > 3 * protocol::max_model_piece_bytes);
    const auto loaded = load_in_pieces(*r, bytes);
    BOOST_TEST(loaded.name == "matmul.neff");
    BOOST_TEST(loaded.tensors.size() == 3u);
    BOOST_TEST(counter(0, 0, model::counter_kind::device_model_shared_scratchpad).total == 64 * mib);
    BOOST_TEST(counter(0, 1, model::counter_kind::device_model_shared_scratchpad).total == 64 * mib);
    BOOST_TEST(counter(0, 1, model::counter_kind::device_model_code).total == 8192u, "4384 bytes in whole pages");

    // A second, larger graph on the same core: its scratchpad, not the sum.
    load_in_pieces(*r, big_scratchpad_matmul());
    BOOST_TEST(counter(0, 0, model::counter_kind::device_model_shared_scratchpad).total == 128 * mib);
    BOOST_TEST(counter(0, 1, model::counter_kind::device_model_shared_scratchpad).total == 64 * mib);

    send_execute(*r, 9, loaded.model_id);
    advance(std::chrono::milliseconds(1));
    BOOST_TEST(wait_executed(*r, 9).status == 0u);
    close_session(*r);
    BOOST_TEST(counter(0, 0, model::counter_kind::flop_count).total == 2u * 4194304u);
    BOOST_TEST(counter(0, 0, model::counter_kind::device_mem).total == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_broken_neff_is_refused_naming_it_and_leaves_no_pieces, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    auto b = neff_builder::two_core_matmul();
    b.members["debug_info/noise.dbg"] = noise(2 * protocol::max_model_piece_bytes);
    auto bytes = b.bytes();
    bytes.resize(bytes.size() - 1000);
    BOOST_CHECK_EXCEPTION(load_in_pieces(*r, bytes), request_refused,
                          refused_with(nrt_status::invalid, "NEFF \"file.neff\" (" + std::to_string(bytes.size()) +
                                                                " bytes) cannot be loaded: "));
    // The refused pieces are gone: the next NEFF loads on its own.
    BOOST_TEST(load_in_pieces(*r, neff_builder::two_core_matmul().bytes()).name == "matmul.neff");
    // So are pieces a NEFF page size refused (with paged scratchpad: NEURON_RT_CONTIGUOUS_SCRATCHPAD=0).
    BOOST_CHECK_EXCEPTION(load_in_pieces(*r, bytes, 1000, true), request_refused,
                          refused_with(nrt_status::invalid, "NEURON_SCRATCHPAD_PAGE_SIZE=1000"));
    BOOST_TEST(load_in_pieces(*r, neff_builder::two_core_matmul().bytes()).name == "matmul.neff");
    close_session(*r);
    BOOST_TEST(counter(0, 0, model::counter_kind::invalid_error).total == 2u);
    BOOST_TEST(counter(0, 0, model::counter_kind::model_load_count).total == 2u);
}

BOOST_FIXTURE_TEST_CASE(pieces_must_start_continue_and_end_a_file, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    const auto bytes = neff_builder::two_core_matmul().bytes();
    const auto piece = [&](std::uint64_t total, std::uint64_t offset, std::string data) {
        r->call<protocol::empty_body>(message_type::model_piece, protocol::model_piece{total, offset, std::move(data)},
                                      message_type::ok);
    };
    BOOST_CHECK_EXCEPTION(piece(bytes.size(), 100, bytes.substr(100, 100)), request_refused,
                          refused_with(nrt_status::invalid, "a piece at byte 100 of a " + std::to_string(bytes.size()) +
                                                                "-byte NEFF continues none being sent"));
    piece(bytes.size(), 0, bytes.substr(0, 100));
    BOOST_CHECK_EXCEPTION(piece(bytes.size(), 200, bytes.substr(200, 100)), request_refused,
                          refused_with(nrt_status::invalid, "continues none being sent"));
    piece(bytes.size(), 0, bytes.substr(0, 100));
    BOOST_CHECK_EXCEPTION(load(*r, bytes.substr(100, 50)), request_refused,
                          refused_with(nrt_status::invalid, "the NEFF's pieces and its end hold 150 of its " +
                                                                std::to_string(bytes.size()) + " bytes"));
    BOOST_CHECK_EXCEPTION(piece(protocol::max_neff_bytes + 1, 0, "x"), request_refused,
                          refused_with(nrt_status::invalid, "the emulator loads at most 4 GiB"));
    // A file started again drops the one before it.
    piece(bytes.size(), 0, bytes.substr(0, 100));
    piece(bytes.size(), 0, bytes.substr(0, 100));
    BOOST_TEST(load(*r, bytes.substr(100)).name == "matmul.neff");
    close_session(*r);
}

// A NEFF is read off the I/O thread: while one inflating hundreds of MiB
// is read, another client's request is answered.
BOOST_FIXTURE_TEST_CASE(other_clients_are_answered_while_a_large_neff_is_read, server_fixture) {
    const auto a = runtime("large");
    const auto b = runtime("other");
    open_range(*a, 0, 1);
    auto builder = neff_builder::two_core_matmul();
    builder.members["debug_info/zeros.dbg"] =
        std::string(std::size_t{256} << 20, '\0'); // a few hundred KiB in the gzip
    const auto bytes = builder.bytes();
    std::size_t at = 0;
    for (; bytes.size() - at > protocol::max_model_piece_bytes; at += protocol::max_model_piece_bytes) {
        a->call<protocol::empty_body>(
            message_type::model_piece,
            protocol::model_piece{bytes.size(), at, bytes.substr(at, protocol::max_model_piece_bytes)},
            message_type::ok);
    }
    send_message(a->fd(),
                 make_message(message_type::load_model, 77, protocol::load_model{-1, bytes.substr(at), 0, false}));
    const auto described = b->call<protocol::instance_description>(
        message_type::describe_instance, protocol::empty_body{}, message_type::instance_description);
    BOOST_TEST(described.name == "trn2.48xlarge");
    BOOST_TEST(!receive_message(a->fd(), 0).has_value(), "the other client was answered before the NEFF was read");
    const auto r = next_reply(a->fd(), 60'000);
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->header.type == static_cast<std::uint16_t>(message_type::model_loaded));
    BOOST_TEST(r->header.request_id == 77u);
    BOOST_TEST(body_of<protocol::model_loaded>(*r).name == "matmul.neff");
}

// The finding: two idle uploads of 128 KiB announcing 4 GiB each reserved
// the whole 8 GiB budget, and every other NEFF over 128 KiB failed.
BOOST_FIXTURE_TEST_CASE(idle_uploads_announcing_huge_neffs_do_not_hold_the_budget, server_fixture) {
    const auto idle_1 = runtime("idle-1");
    const auto idle_2 = runtime("idle-2");
    std::uint32_t core = 1;
    for (auto* c : {idle_1.get(), idle_2.get()}) {
        open_range(*c, core++, 1);
        c->call<protocol::empty_body>(
            message_type::model_piece,
            protocol::model_piece{protocol::max_neff_bytes, 0, noise(protocol::max_model_piece_bytes)},
            message_type::ok);
    }
    const auto r = runtime();
    open_range(*r, 0, 1);
    auto b = neff_builder::two_core_matmul();
    b.members["debug_info/noise.dbg"] = noise(2 * protocol::max_model_piece_bytes);
    BOOST_TEST(load_in_pieces(*r, b.bytes()).name == "matmul.neff");
}
