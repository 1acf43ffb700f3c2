#pragma once

// One populated instance of every message body in messages.h, each field
// away from its default and, where it can be, with bytes that differ from
// their neighbours', so a swapped, dropped or re-sized field shows in the
// encoding. message_wire_format_test.cpp holds their encodings fixed.

#include "neuron/protocol/messages.h"

#include <string>

namespace neuron::protocol::testing {

inline model_tensor sample_model_tensor() {
    model_tensor t;
    t.name = "out";
    t.usage = tensor_usage::output;
    t.dtype = 0x0A0B0C0D;
    t.shape = {2, 3, 0x0102030405060708ull};
    t.size = 168;
    t.rule = output_rule::sum;
    t.sources = {"a", "bb"};
    t.fill_value = -2.5;
    return t;
}

inline model_loaded sample_model_loaded() {
    model_tensor input;
    input.name = "a";
    input.usage = tensor_usage::input;
    input.dtype = 6;
    input.shape = {4};
    input.size = 16;
    model_tensor filled;
    filled.name = "filled";
    filled.usage = tensor_usage::output;
    filled.dtype = 6;
    filled.shape = {};
    filled.size = 4;
    filled.rule = output_rule::fill;
    filled.fill_value = 1.0 / 3.0;
    return model_loaded{0x11223344, 63, "add", {input, sample_model_tensor(), filled}};
}

// Calls f(name, body) for every message body type, model_tensor (which
// travels inside model_loaded) and empty_body included.
template <typename F>
void for_each_sample(F&& f) {
    f("hello", hello{peer_role::debug_stream, 0x01020304, "label-\xc3\xbc"});
    f("hello_ok", hello_ok{"neuron-emu 0.1.0", "trn2.48xlarge"});
    f("error", error_reply{runtime_api::nrt_status::resource, "core 3 is in use by pid 77"});
    f("instance_description",
      instance_description{"trn2.48xlarge", 5, 7, "TRN", "v3", "Trainium2", 16, 8, 2, 3, (96ull << 30) + 0x123, 4});
    f("open_session", open_session{2, core_selection::range, 0x00010004, 8});
    f("session_opened", session_opened{0xfedcba9876543210ull, 2, 4, 8});
    f("allocate", allocate{3, memory_location::host, 9, (1ull << 40) + 1});
    f("allocated", allocated{0x8877665544332211ull});
    f("free_memory", free_memory{77});
    f("model_piece", model_piece{(1ull << 32) + 7, 0x20000, std::string("NEFF\0\xff", 6)});
    f("load_model", load_model{-2, std::string("neuron_emu_model: 1\0\xff", 21), 2048, true});
    f("model_tensor", sample_model_tensor());
    f("model_loaded", sample_model_loaded());
    f("unload_model", unload_model{0xdeadbeef});
    f("execute", execute{7, 1000, 2'000'000'000'000ull, true});
    f("executed", executed{1203, 2, 5, 0x0102030405060708ull, 777, 0x0a0b0c0d});
    f("read_profile", read_profile{{3, 0x01020304}, 0x0000100000000005ull});
    f("profile_data", profile_data{(1ull << 33) + 1, std::string("NEMU\0\xff", 6)});
    f("drop_profiles", drop_profiles{{9}});
    f("join_collective", join_collective{"global/2", collective_kind::send_receive, 1, 2, 5, 3, 30'000'000'000ull, 7, 4,
                                         std::string("\x01\x02", 2)});
    f("collective_joined", collective_joined{std::string("\x01\x02\x03", 3)});
    f("open_stream", open_stream{0x1122334455667788ull, 12, 4096});
    f("status_report", status_report{"{\"summary\": \"ok\"}"});
    f("inject_ecc", inject_ecc{3, "hbm-repairable", -5, 2});
    f("inject_fault", inject_fault{2, 1, "dma_abort", "tensor", 3});
    f("reset_device", reset_device{15});
    f("reset_started", reset_started{"already_pending"});
    f("set_repair_state", set_repair_state{4, 2});
    f("fail_resets", fail_resets{2, -(1ll << 40)});
    f("emit_debug", emit_debug{5, 70000, "layer0", "bfloat16", {4, 4, 2}, 1});
    f("debug_emitted", debug_emitted{65536, 4464, 3});
    f("advance", advance{1'000'000'000'000ull});
    f("advanced", advanced{58334});
    f("empty_body", empty_body{});
}

} // namespace neuron::protocol::testing
