#define BOOST_TEST_MODULE messages
#include "neuron/protocol/messages.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace neuron::protocol;
using namespace neuron::runtime_api;

namespace {

using bytes = std::vector<std::uint8_t>;

template <typename Body>
bytes body_bytes(const Body& body) {
    wire_writer w;
    encode_fields(w, body);
    return w.bytes();
}

// A whole message through the header and back; re-encoding what was decoded
// must give the very same bytes.
template <typename Body>
Body round_trip(message_type type, const Body& body, std::uint32_t request_id = 4242) {
    const auto message = make_message(type, request_id, body);
    const auto header = decode_header(message.data(), message.size());
    BOOST_TEST(header.magic == wire_magic);
    BOOST_TEST(header.version == wire_version);
    BOOST_TEST(header.type == static_cast<std::uint16_t>(type));
    BOOST_TEST(header.request_id == request_id);
    BOOST_TEST(header.body_size == message.size() - header_size);
    auto decoded = decode_body<Body>(message.data() + header_size, message.size() - header_size, "test");
    BOOST_TEST(make_message(type, request_id, decoded) == message, boost::test_tools::per_element());
    return decoded;
}

// Decodes exactly `size` bytes from their own allocation, so a sanitizer sees
// any read past them.
template <typename Body>
Body decode_exact(const bytes& b, std::size_t size) {
    const bytes copy(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(size));
    return decode_body<Body>(copy.data(), copy.size(), "test");
}

template <typename Body>
void refuses_every_truncation(const Body& body) {
    const auto b = body_bytes(body);
    BOOST_TEST_REQUIRE(!b.empty());
    for (std::size_t n = 0; n < b.size(); ++n) {
        BOOST_CHECK_THROW(decode_exact<Body>(b, n), protocol_error);
    }
    BOOST_CHECK_NO_THROW(decode_exact<Body>(b, b.size()));
}

template <typename Body>
void refuses_trailing_bytes(const Body& body) {
    auto b = body_bytes(body);
    b.push_back(0);
    BOOST_CHECK_EXCEPTION(decode_exact<Body>(b, b.size()), protocol_error, [](const protocol_error& e) {
        return std::string(e.what()).find("1 unexpected trailing bytes") != std::string::npos;
    });
}

auto says(std::string text) {
    return [text = std::move(text)](const protocol_error& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

model_tensor sample_tensor(std::string name, tensor_usage usage, output_rule rule) {
    model_tensor t;
    t.name = std::move(name);
    t.usage = usage;
    t.dtype = 0xA;
    t.shape = {2, 3, 1, 1, 1, 1, 1, 7};
    t.size = 2 * 3 * 7 * 4;
    t.rule = rule;
    if (rule == output_rule::sum) t.sources = {"a", "b"};
    if (rule == output_rule::copy) t.sources = {"a"};
    t.fill_value = rule == output_rule::fill ? -2.5 : 0.0;
    return t;
}

model_loaded sample_model() {
    model_loaded m;
    m.model_id = 7;
    m.logical_core = 63;
    m.name = "add";
    m.tensors = {sample_tensor("a", tensor_usage::input, output_rule::none),
                 sample_tensor("b", tensor_usage::input, output_rule::none),
                 sample_tensor("out", tensor_usage::output, output_rule::sum),
                 sample_tensor("copy", tensor_usage::output, output_rule::copy),
                 sample_tensor("filled", tensor_usage::output, output_rule::fill)};
    return m;
}

// A tensor written field by field, so fields can hold what encode_fields() never writes.
bytes raw_tensor(std::uint8_t usage, std::uint32_t ndim, std::uint8_t rule, std::uint32_t sources) {
    wire_writer w;
    w.string("t");
    w.u8(usage);
    w.u32(0xA);
    w.u32(ndim);
    for (std::uint32_t i = 0; i < ndim; ++i) w.u64(2);
    w.u64(4);
    w.u8(rule);
    w.u32(sources);
    for (std::uint32_t i = 0; i < sources; ++i) w.string("a");
    w.f64(0);
    return w.bytes();
}

bytes raw_model_loaded(std::uint32_t count, const bytes& tensor) {
    wire_writer w;
    w.u32(1);
    w.u32(0);
    w.string("m");
    w.u32(count);
    for (std::uint32_t i = 0; i < count; ++i) w.raw(tensor.data(), tensor.size());
    return w.bytes();
}

emit_debug sample_emit() {
    emit_debug m;
    m.logical_core = 5;
    m.count = 70000;
    m.prefix = "layer0";
    m.dtype = "bfloat16";
    m.shape = {4, 4, 2};
    m.pipe = 1;
    return m;
}

// Decodes a mutated body: a protocol_error is fine, anything else is not.
template <typename Body>
bool decodes_or_refuses(const bytes& b) {
    try {
        decode_exact<Body>(b, b.size());
    } catch (const protocol_error&) {}
    return true;
}

template <typename Body>
void survives_mutations(const Body& body, std::uint32_t seed) {
    const auto original = body_bytes(body);
    std::mt19937 random(seed);
    for (int round = 0; round < 3000; ++round) {
        auto b = original;
        const int changes = 1 + static_cast<int>(random() % 4);
        for (int c = 0; c < changes; ++c) {
            switch (random() % 4) {
            case 0: b[random() % b.size()] = static_cast<std::uint8_t>(random()); break;
            case 1: b[random() % b.size()] = 0xff; break;
            case 2: b.resize(random() % (b.size() + 1)); break;
            case 3: b.push_back(static_cast<std::uint8_t>(random())); break;
            }
            if (b.empty()) b.push_back(0);
        }
        BOOST_CHECK_NO_THROW(decodes_or_refuses<Body>(b));
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(hello_round_trips_with_every_role) {
    for (const auto role : {peer_role::runtime, peer_role::control, peer_role::debug_stream}) {
        const auto m = round_trip(message_type::hello, hello{role, 123456, "my-app"});
        BOOST_TEST(static_cast<int>(m.role) == static_cast<int>(role));
        BOOST_TEST(m.pid == 123456u);
        BOOST_TEST(m.label == "my-app");
    }
}

BOOST_AUTO_TEST_CASE(hello_ok_and_error_round_trip) {
    const auto ok = round_trip(message_type::hello_ok, hello_ok{"neuron-emu 0.1.0", "trn1.2xlarge"});
    BOOST_TEST(ok.server == "neuron-emu 0.1.0");
    BOOST_TEST(ok.instance == "trn1.2xlarge");
    const auto e = round_trip(message_type::error, error_reply{nrt_status::resource, "in use by pid 7"});
    BOOST_TEST(e.code == nrt_status::resource);
    BOOST_TEST(e.message == "in use by pid 7");
}

BOOST_AUTO_TEST_CASE(instance_description_round_trips) {
    instance_description d;
    d.name = "trn2.48xlarge";
    d.family = 5;
    d.size = 7;
    d.arch_name = "TRN";
    d.device_revision = "v3";
    d.device_name = "Trainium2";
    d.device_count = 16;
    d.physical_cores_per_device = 8;
    d.default_lnc = 2;
    d.max_lnc = 2;
    d.device_memory_bytes = 96ull << 30;
    const auto m = round_trip(message_type::instance_description, d);
    BOOST_TEST(m.name == "trn2.48xlarge");
    BOOST_TEST(m.family == 5u);
    BOOST_TEST(m.size == 7u);
    BOOST_TEST(m.arch_name == "TRN");
    BOOST_TEST(m.device_revision == "v3");
    BOOST_TEST(m.device_name == "Trainium2");
    BOOST_TEST(m.device_count == 16u);
    BOOST_TEST(m.physical_cores_per_device == 8u);
    BOOST_TEST(m.default_lnc == 2u);
    BOOST_TEST(m.max_lnc == 2u);
    BOOST_TEST(m.device_memory_bytes == 96ull << 30);
}

BOOST_AUTO_TEST_CASE(session_messages_round_trip) {
    for (const auto selection : {core_selection::all_free, core_selection::count, core_selection::range}) {
        const auto m = round_trip(message_type::open_session, open_session{2, selection, 4, 8});
        BOOST_TEST(m.lnc == 2u);
        BOOST_TEST(static_cast<int>(m.selection) == static_cast<int>(selection));
        BOOST_TEST(m.first == 4u);
        BOOST_TEST(m.count == 8u);
    }
    const auto s = round_trip(message_type::session_opened, session_opened{0xfedcba9876543210ull, 2, 4, 8});
    BOOST_TEST(s.token == 0xfedcba9876543210ull);
    BOOST_TEST(s.lnc == 2u);
    BOOST_TEST(s.first == 4u);
    BOOST_TEST(s.count == 8u);
    round_trip(message_type::close_session, empty_body{});
    round_trip(message_type::describe_instance, empty_body{});
}

BOOST_AUTO_TEST_CASE(memory_messages_round_trip) {
    for (const auto location : {memory_location::host, memory_location::device}) {
        const auto a = round_trip(message_type::allocate, allocate{3, location, 9, (1ull << 40) + 1});
        BOOST_TEST(a.logical_core == 3u);
        BOOST_TEST(static_cast<int>(a.location) == static_cast<int>(location));
        BOOST_TEST(a.mem_type == 9u);
        BOOST_TEST(a.size == (1ull << 40) + 1);
    }
    BOOST_TEST(round_trip(message_type::allocated, allocated{~0ull}).id == ~0ull);
    BOOST_TEST(round_trip(message_type::free_memory, free_memory{77}).id == 77u);
}

BOOST_AUTO_TEST_CASE(model_messages_round_trip) {
    const auto load = round_trip(message_type::load_model, load_model{-1, std::string("neuron_emu_model: 1\0x", 22)});
    BOOST_TEST(load.logical_core == -1);
    BOOST_TEST(load.bytes == std::string("neuron_emu_model: 1\0x", 22));

    const auto m = round_trip(message_type::model_loaded, sample_model());
    BOOST_TEST(m.model_id == 7u);
    BOOST_TEST(m.logical_core == 63u);
    BOOST_TEST(m.name == "add");
    BOOST_TEST_REQUIRE(m.tensors.size() == 5u);
    BOOST_TEST(m.tensors[0].name == "a");
    BOOST_TEST(static_cast<int>(m.tensors[0].usage) == static_cast<int>(tensor_usage::input));
    BOOST_TEST(m.tensors[0].dtype == 0xAu);
    BOOST_TEST(m.tensors[0].shape == std::vector<std::uint64_t>({2, 3, 1, 1, 1, 1, 1, 7}),
               boost::test_tools::per_element());
    BOOST_TEST(m.tensors[0].size == 168u);
    BOOST_TEST(static_cast<int>(m.tensors[2].usage) == static_cast<int>(tensor_usage::output));
    BOOST_TEST(static_cast<int>(m.tensors[2].rule) == static_cast<int>(output_rule::sum));
    BOOST_TEST(m.tensors[2].sources == std::vector<std::string>({"a", "b"}), boost::test_tools::per_element());
    BOOST_TEST(static_cast<int>(m.tensors[3].rule) == static_cast<int>(output_rule::copy));
    BOOST_TEST(static_cast<int>(m.tensors[4].rule) == static_cast<int>(output_rule::fill));
    BOOST_TEST(m.tensors[4].fill_value == -2.5);

    const auto empty = round_trip(message_type::model_loaded, model_loaded{1, 0, "nothing", {}});
    BOOST_TEST(empty.tensors.empty());
    BOOST_TEST(round_trip(message_type::unload_model, unload_model{7}).model_id == 7u);
}

BOOST_AUTO_TEST_CASE(execution_messages_round_trip) {
    const auto e = round_trip(message_type::execute, execute{7, 1000, 2'000'000'000});
    BOOST_TEST(e.model_id == 7u);
    BOOST_TEST(e.repeat == 1000u);
    BOOST_TEST(e.timeout_ns == 2'000'000'000u);
    const auto done = round_trip(message_type::executed, executed{1203, 2, 5});
    BOOST_TEST(done.status == 1203u);
    BOOST_TEST(done.completed == 2u);
    BOOST_TEST(done.dma_engine == 5u);
}

BOOST_AUTO_TEST_CASE(stream_messages_round_trip) {
    const auto o = round_trip(message_type::open_stream, open_stream{0x1122334455667788ull, 12, 65536});
    BOOST_TEST(o.token == 0x1122334455667788ull);
    BOOST_TEST(o.logical_core == 12u);
    BOOST_TEST(o.capacity == 65536u);
    round_trip(message_type::stream_opened, empty_body{});
}

BOOST_AUTO_TEST_CASE(control_messages_round_trip) {
    round_trip(message_type::status, empty_body{});
    BOOST_TEST(round_trip(message_type::status_report, status_report{"{\"instance\": \"x\"}"}).json ==
               "{\"instance\": \"x\"}");
    const auto ecc = round_trip(message_type::inject_ecc, inject_ecc{3, "hbm-repairable", -5, -1});
    BOOST_TEST(ecc.device == 3u);
    BOOST_TEST(ecc.kind == "hbm-repairable");
    BOOST_TEST(ecc.count == -5);
    BOOST_TEST(ecc.channel == -1);
    const auto fault = round_trip(message_type::inject_fault, inject_fault{2, -1, "dma_abort", "", 3});
    BOOST_TEST(fault.device == 2u);
    BOOST_TEST(fault.core == -1);
    BOOST_TEST(fault.kind == "dma_abort");
    BOOST_TEST(fault.engine == "");
    BOOST_TEST(fault.queue == 3);
    BOOST_TEST(round_trip(message_type::reset_device, reset_device{15}).device == 15u);
    BOOST_TEST(round_trip(message_type::reset_started, reset_started{"refused_device_open"}).outcome ==
               "refused_device_open");
    const auto fail = round_trip(message_type::fail_resets, fail_resets{2, 1ll << 40});
    BOOST_TEST(fail.device == 2u);
    BOOST_TEST(fail.count == 1ll << 40);
    const auto repair = round_trip(message_type::set_repair_state, set_repair_state{4, 2});
    BOOST_TEST(repair.device == 4u);
    BOOST_TEST(repair.state == 2u);
    round_trip(message_type::ok, empty_body{});
}

BOOST_AUTO_TEST_CASE(a_repair_state_beyond_2_is_refused) {
    wire_writer w;
    w.u32(0);
    w.u32(3);
    BOOST_CHECK_THROW((void)decode_body<set_repair_state>(w.bytes().data(), w.bytes().size(), "set_repair_state"),
                      protocol_error);
}

// A collective that could not complete, or whose data would not fit one
// datagram, is refused when decoded.
BOOST_AUTO_TEST_CASE(impossible_collectives_are_refused) {
    const auto refused = [](const join_collective& m, const std::string& why) {
        wire_writer w;
        encode_fields(w, m);
        BOOST_CHECK_EXCEPTION((void)decode_body<join_collective>(w.bytes().data(), w.bytes().size(), "join_collective"),
                              protocol_error, [&](const protocol_error& e) {
                                  BOOST_TEST_INFO("message: " << e.what());
                                  return std::string(e.what()).find(why) != std::string::npos;
                              });
    };
    const std::string most(max_collective_bytes / 4, 'x');
    const auto piece = std::string(max_collective_bytes, 'x');
    using k = collective_kind;
    refused({"", k::barrier, 0, 2, 0, 0, 0, 0, 0, ""}, "a group is named by 1 to 256 bytes");
    refused({std::string(257, 'g'), k::barrier, 0, 2, 0, 0, 0, 0, 0, ""}, "a group is named by 1 to 256 bytes");
    refused({"g", k::barrier, 2, 2, 0, 0, 0, 0, 0, ""}, "rank is not one of ranks");
    refused({"g", k::barrier, 0, 0, 0, 0, 0, 0, 0, ""}, "rank is not one of ranks");
    refused({"g", k::all_gather, 0, 5, 0, 0, 0, 0, 0, most}, "gathers more than 131072 bytes");
    refused({"g", k::all_gather, 0, 2, 0, 1, 0, 0, 0, ""}, "only a send/receive has a peer core");
    refused({"g", k::barrier, 0, 2, 0, 0, 0, 8, 0, ""}, "only a send/receive has a peer core");
    refused({"g", k::send_receive, 0, 3, 0, 1, 0, 8, 0, ""}, "a send/receive has 2 ranks");
    refused({"g", k::send_receive, 0, 2, 0, 1, 0, 16, 8, std::string(9, 'x')}, "a piece ends past");
    refused({"g", k::send_receive, 0, 2, 0, 1, 0, 16, 17, ""}, "a piece ends past");
    round_trip(message_type::join_collective, join_collective{"g", k::all_gather, 3, 4, 0, 0, 0, 0, 0, most});
    // A send gathers only the sender's bytes.
    round_trip(message_type::join_collective,
               join_collective{"g", k::send_receive, 0, 2, 0, 1, 0, 1ull << 40, 128, piece});
}

BOOST_AUTO_TEST_CASE(a_profile_piece_over_128_kib_is_refused) {
    wire_writer w;
    encode_fields(w, profile_data{1u << 20, std::string(max_profile_chunk_bytes + 1, 'p')});
    BOOST_CHECK_EXCEPTION((void)decode_body<profile_data>(w.bytes().data(), w.bytes().size(), "profile_data"),
                          protocol_error, [](const protocol_error& e) {
                              return std::string(e.what()).find("a piece of 131073 bytes, more than 131072") !=
                                     std::string::npos;
                          });
    round_trip(message_type::profile_data, profile_data{1u << 20, std::string(max_profile_chunk_bytes, 'p')});
}

BOOST_AUTO_TEST_CASE(debug_and_time_messages_round_trip) {
    const auto e = round_trip(message_type::emit_debug, sample_emit());
    BOOST_TEST(e.logical_core == 5u);
    BOOST_TEST(e.count == 70000u);
    BOOST_TEST(e.prefix == "layer0");
    BOOST_TEST(e.dtype == "bfloat16");
    BOOST_TEST(e.shape == std::vector<std::uint64_t>({4, 4, 2}), boost::test_tools::per_element());
    BOOST_TEST(e.pipe == 1u);
    const auto none = round_trip(message_type::emit_debug, emit_debug{0, 1, "", "int8", {}, 0});
    BOOST_TEST(none.shape.empty()); // decode replaces the default shape

    const auto d = round_trip(message_type::debug_emitted, debug_emitted{65536, 4464, 3});
    BOOST_TEST(d.accepted == 65536u);
    BOOST_TEST(d.dropped == 4464u);
    BOOST_TEST(d.discarded == 3u);
    BOOST_TEST(round_trip(message_type::advance, advance{1'000'000'000'000ull}).ns == 1'000'000'000'000ull);
    BOOST_TEST(round_trip(message_type::advanced, advanced{58334}).now_ns == 58334u);
}

BOOST_AUTO_TEST_CASE(an_empty_body_has_no_bytes) {
    const auto m = make_message(message_type::status, 1, empty_body{});
    BOOST_TEST(m.size() == header_size);
    BOOST_CHECK_EXCEPTION(decode_body<empty_body>(m.data(), 1, "status"), protocol_error,
                          says("status: 1 unexpected trailing bytes"));
}

BOOST_AUTO_TEST_CASE(truncated_bodies_are_refused_at_every_length) {
    refuses_every_truncation(hello{peer_role::control, 99, "ctl"});
    refuses_every_truncation(
        instance_description{"trn1.2xlarge", 2, 1, "TRN", "v2", "Trainium1", 1, 2, 1, 1, 32ull << 30});
    refuses_every_truncation(open_session{1, core_selection::range, 0, 2});
    refuses_every_truncation(allocate{0, memory_location::device, 9, 4096});
    refuses_every_truncation(load_model{0, "neuron_emu_model: 1"});
    refuses_every_truncation(sample_model());
    refuses_every_truncation(sample_emit());
    refuses_every_truncation(inject_ecc{0, "sram", 1, 2});
    refuses_every_truncation(inject_fault{0, 1, "out_of_bounds", "tensor", -1});
    refuses_every_truncation(debug_emitted{1, 2, 3});
}

BOOST_AUTO_TEST_CASE(trailing_bytes_are_refused) {
    refuses_trailing_bytes(hello{peer_role::runtime, 1, "x"});
    refuses_trailing_bytes(open_session{});
    refuses_trailing_bytes(allocate{});
    refuses_trailing_bytes(sample_model());
    refuses_trailing_bytes(execute{});
    refuses_trailing_bytes(open_stream{});
    refuses_trailing_bytes(sample_emit());
    refuses_trailing_bytes(advance{});
}

BOOST_AUTO_TEST_CASE(an_unknown_hello_role_is_refused) {
    for (std::uint8_t role : {0, 4, 0xff}) {
        auto b = body_bytes(hello{peer_role::runtime, 1, "x"});
        b[0] = role;
        BOOST_CHECK_EXCEPTION(decode_exact<hello>(b, b.size()), protocol_error,
                              says("hello: unknown role " + std::to_string(role)));
    }
}

BOOST_AUTO_TEST_CASE(an_unknown_core_selection_is_refused) {
    for (std::uint8_t selection : {3, 0xff}) {
        auto b = body_bytes(open_session{1, core_selection::range, 0, 1});
        b[4] = selection; // after the u32 lnc
        BOOST_CHECK_EXCEPTION(decode_exact<open_session>(b, b.size()), protocol_error, says("unknown core selection"));
    }
}

BOOST_AUTO_TEST_CASE(an_unknown_memory_location_is_refused) {
    for (std::uint8_t location : {2, 0xff}) {
        auto b = body_bytes(allocate{0, memory_location::host, 9, 1});
        b[4] = location; // after the u32 logical core
        BOOST_CHECK_EXCEPTION(decode_exact<allocate>(b, b.size()), protocol_error, says("unknown memory location"));
    }
}

BOOST_AUTO_TEST_CASE(unknown_tensor_usages_and_rules_are_refused) {
    BOOST_CHECK_NO_THROW(decode_exact<model_loaded>(raw_model_loaded(1, raw_tensor(1, 2, 3, 0)),
                                                    raw_model_loaded(1, raw_tensor(1, 2, 3, 0)).size()));
    const auto bad_usage = raw_model_loaded(1, raw_tensor(2, 2, 0, 0));
    BOOST_CHECK_EXCEPTION(decode_exact<model_loaded>(bad_usage, bad_usage.size()), protocol_error,
                          says("unknown usage"));
    const auto bad_rule = raw_model_loaded(1, raw_tensor(1, 2, 4, 0));
    BOOST_CHECK_EXCEPTION(decode_exact<model_loaded>(bad_rule, bad_rule.size()), protocol_error,
                          says("unknown output rule"));
}

BOOST_AUTO_TEST_CASE(more_than_8_dimensions_are_refused) {
    const auto eight = raw_model_loaded(1, raw_tensor(0, 8, 0, 0));
    BOOST_CHECK_NO_THROW(decode_exact<model_loaded>(eight, eight.size()));
    for (std::uint32_t dims : {9u, 1000u, 0xffffffffu}) {
        const auto b = raw_model_loaded(1, raw_tensor(0, dims == 9 ? 9 : 0, 0, 0));
        auto patched = b;
        if (dims != 9) { // claims many dimensions without carrying them
            const std::size_t at = 4 + 4 + (4 + 1) + 4 + (4 + 1) + 1 + 4; // id, core, "m", count, "t", usage, dtype
            for (int i = 0; i < 4; ++i) patched[at + i] = static_cast<std::uint8_t>(dims >> (8 * i));
        }
        BOOST_CHECK_EXCEPTION(
            decode_exact<model_loaded>(patched, patched.size()), protocol_error,
            says("model_tensor: " + std::to_string(dims) + " entries in model_tensor.shape, more than 8"));
    }
    auto e = sample_emit();
    e.shape.assign(9, 1);
    const auto b = body_bytes(e);
    BOOST_CHECK_EXCEPTION(decode_exact<emit_debug>(b, b.size()), protocol_error,
                          says("emit_debug: 9 entries in emit_debug.shape, more than 8"));
}

BOOST_AUTO_TEST_CASE(absurd_counts_are_refused_without_allocating) {
    const auto sources = raw_model_loaded(1, raw_tensor(1, 1, 2, 65));
    BOOST_CHECK_EXCEPTION(decode_exact<model_loaded>(sources, sources.size()), protocol_error,
                          says("model_tensor: 65 entries in model_tensor.sources, more than 64"));
    const auto many = raw_model_loaded(4097, raw_tensor(0, 1, 0, 0));
    BOOST_CHECK_EXCEPTION(decode_exact<model_loaded>(many, many.size()), protocol_error,
                          says("model_loaded: 4097 entries in model_loaded.tensors, more than 4096"));
    // A count within bounds but with nothing behind it.
    wire_writer w;
    w.u32(1);
    w.u32(0);
    w.string("m");
    w.u32(4096);
    BOOST_CHECK_EXCEPTION(decode_exact<model_loaded>(w.bytes(), w.bytes().size()), protocol_error,
                          says("message too short reading model_tensor.name"));
}

BOOST_AUTO_TEST_CASE(mutated_bodies_decode_or_are_refused_never_worse) {
    survives_mutations(hello{peer_role::debug_stream, 5, "label"}, 1);
    survives_mutations(instance_description{"inf1.xlarge", 1, 0, "INF", "v1", "Inferentia", 1, 4, 1, 1, 8ull << 30}, 2);
    survives_mutations(open_session{2, core_selection::count, 0, 4}, 3);
    survives_mutations(allocate{1, memory_location::device, 9, 100}, 4);
    survives_mutations(load_model{2, "neuron_emu_model: 1\nname: x\n"}, 5);
    survives_mutations(sample_model(), 6);
    survives_mutations(sample_emit(), 7);
    survives_mutations(inject_ecc{0, "hbm", 1, -1}, 8);
    survives_mutations(error_reply{2, "message"}, 9);
    survives_mutations(status_report{"{}"}, 10);
    survives_mutations(inject_fault{0, 1, "sram_uncorrectable", "vector", -1}, 11);
}

BOOST_AUTO_TEST_CASE(random_datagrams_are_refused_as_headers_never_worse) {
    std::mt19937 random(11);
    const auto valid = make_message(message_type::execute, 3, execute{1, 1});
    for (int round = 0; round < 5000; ++round) {
        bytes b = valid;
        if (round % 2 == 0) {
            b.resize(random() % 40);
            for (auto& byte : b) byte = static_cast<std::uint8_t>(random());
        } else {
            b[random() % b.size()] = static_cast<std::uint8_t>(random());
        }
        const bytes copy(b);
        try {
            const auto h = decode_header(copy.data(), copy.size());
            BOOST_TEST(h.body_size == copy.size() - header_size);
        } catch (const protocol_error&) {}
    }
}
