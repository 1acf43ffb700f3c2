// The control channel's decoders (protocol/messages.h): the input is one
// datagram as the control server or the shim receives it. The header is
// decoded, then the body with the decoder of the type it names (every message
// type's decoder is reachable, a peer choosing the type freely). A
// protocol_error is the expected answer to bad input. A body that decodes
// must encode back to the same bytes: the wire format has one spelling per
// message, so anything else means encoder and decoder disagree.

#include "neuron/protocol/messages.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using namespace neuron::protocol;

template <typename Body>
void decode_as(const std::uint8_t* body, std::size_t size, const char* name) {
    Body m;
    try {
        m = decode_body<Body>(body, size, name);
    } catch (const protocol_error&) {
        return;
    }
    wire_writer again;
    encode_fields(again, m);
    if (again.bytes().size() != size || (size != 0 && std::memcmp(again.bytes().data(), body, size) != 0)) {
        std::fprintf(stderr, "messages_fuzzer: %s decodes, but encodes back to other bytes\n", name);
        std::abort();
    }
}

using decoder = void (*)(const std::uint8_t*, std::size_t, const char*);

struct message_decoder {
    message_type type;
    const char* name;
    decoder decode;
};

// Every message type, with the body it carries.
constexpr message_decoder decoders[] = {
    {message_type::hello, "hello", decode_as<hello>},
    {message_type::hello_ok, "hello_ok", decode_as<hello_ok>},
    {message_type::error, "error", decode_as<error_reply>},
    {message_type::ok, "ok", decode_as<empty_body>},
    {message_type::describe_instance, "describe_instance", decode_as<empty_body>},
    {message_type::instance_description, "instance_description", decode_as<instance_description>},
    {message_type::open_session, "open_session", decode_as<open_session>},
    {message_type::session_opened, "session_opened", decode_as<session_opened>},
    {message_type::allocate, "allocate", decode_as<allocate>},
    {message_type::allocated, "allocated", decode_as<allocated>},
    {message_type::free_memory, "free_memory", decode_as<free_memory>},
    {message_type::load_model, "load_model", decode_as<load_model>},
    {message_type::model_loaded, "model_loaded", decode_as<model_loaded>},
    {message_type::unload_model, "unload_model", decode_as<unload_model>},
    {message_type::execute, "execute", decode_as<execute>},
    {message_type::executed, "executed", decode_as<executed>},
    {message_type::close_session, "close_session", decode_as<empty_body>},
    {message_type::open_stream, "open_stream", decode_as<open_stream>},
    {message_type::stream_opened, "stream_opened", decode_as<empty_body>},
    {message_type::status, "status", decode_as<empty_body>},
    {message_type::status_report, "status_report", decode_as<status_report>},
    {message_type::inject_ecc, "inject_ecc", decode_as<inject_ecc>},
    {message_type::reset_device, "reset_device", decode_as<reset_device>},
    {message_type::reset_started, "reset_started", decode_as<reset_started>},
    {message_type::fail_resets, "fail_resets", decode_as<fail_resets>},
    {message_type::emit_debug, "emit_debug", decode_as<emit_debug>},
    {message_type::debug_emitted, "debug_emitted", decode_as<debug_emitted>},
    {message_type::advance, "advance", decode_as<advance>},
    {message_type::advanced, "advanced", decode_as<advanced>},
    {message_type::set_repair_state, "set_repair_state", decode_as<set_repair_state>},
    {message_type::inject_fault, "inject_fault", decode_as<inject_fault>},
    {message_type::join_collective, "join_collective", decode_as<join_collective>},
    {message_type::collective_joined, "collective_joined", decode_as<collective_joined>},
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    frame_header header;
    try {
        header = decode_header(data, size);
    } catch (const protocol_error&) {
        // The decoders see bodies a refused header would not let through:
        // the first byte picks one, the rest is its body.
        if (size > 0) {
            const auto& d = decoders[data[0] % std::size(decoders)];
            d.decode(data + 1, size - 1, d.name);
        }
        return 0;
    }
    // A type nobody sends still picks a decoder, so every body reaches one.
    const auto* chosen = &decoders[header.type % std::size(decoders)];
    for (const auto& d : decoders) {
        if (static_cast<std::uint16_t>(d.type) == header.type) chosen = &d;
    }
    chosen->decode(data + header_size, size - header_size, chosen->name);
    return 0;
}
