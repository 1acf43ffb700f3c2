#pragma once

#include <map>
#include <string>

namespace neuron::protocol::testing {
// The bodies of support/message_samples.h as the hand-written encoders of
// wire version 2 wrote them, before messages were described field by field,
// with what version 3 added (instance_description's memory regions,
// executed's times, the collectives), version 4 (execute.profile,
// executed.profile_id, the profile messages) and version 5 (model_piece,
// load_model's scratchpad settings) and version 6 (join_collective's peer
// core, transfer length and offset). They must never change while
// wire_version is 6.
inline const std::map<std::string, std::string> version_6_bodies = {
    {"hello", "0304030201080000006c6162656c2dc3bc"},
    {"hello_ok", "100000006e6575726f6e2d656d7520302e312e300d00000074726e322e343878"
                 "6c61726765"},
    {"error", "040000001a000000636f7265203320697320696e207573652062792070696420"
              "3737"},
    {"instance_description", "0d00000074726e322e3438786c6172676505000000070000000300000054524e"
                             "02000000763309000000547261696e69756d3210000000080000000200000003"
                             "0000002301000018000000"
                             "04000000"},
    {"open_session", "02000000020400010008000000"},
    {"session_opened", "1032547698badcfe020000000400000008000000"},
    {"allocate", "0300000000090000000100000000010000"},
    {"allocated", "1122334455667788"},
    {"free_memory", "4d00000000000000"},
    {"model_piece", "07000000010000000000020000000000060000004e45464600ff"},
    {"load_model", "feffffff150000006e6575726f6e5f656d755f6d6f64656c3a203100ff"
                   "0008000001"},
    {"model_tensor", "030000006f7574010d0c0b0a0300000002000000000000000300000000000000"
                     "0807060504030201a80000000000000002020000000100000061020000006262"
                     "00000000000004c0"},
    {"model_loaded", "443322113f000000030000006164640300000001000000610006000000010000"
                     "0004000000000000001000000000000000000000000000000000000000000300"
                     "00006f7574010d0c0b0a03000000020000000000000003000000000000000807"
                     "060504030201a800000000000000020200000001000000610200000062620000"
                     "0000000004c00600000066696c6c656401060000000000000004000000000000"
                     "000300000000555555555555d53f"},
    {"unload_model", "efbeadde"},
    {"execute", "07000000e803000000204aa9d101000001"},
    {"executed", "b30400000200000005000000"
                 "080706050403020109030000000000000d0c0b0a"},
    {"read_profile", "02000000030000000403020105000000"
                     "00100000"},
    {"profile_data", "0100000002000000060000004e454d5500ff"},
    {"drop_profiles", "0100000009000000"},
    {"join_collective", "08000000676c6f62616c2f3202010000000200000005000000"
                        "0300000000ac23fc06000000070000000000000004000000"
                        "00000000020000000102"},
    {"collective_joined", "03000000010203"},
    {"open_stream", "88776655443322110c00000000100000"},
    {"status_report", "110000007b2273756d6d617279223a20226f6b227d"},
    {"inject_ecc", "030000000e00000068626d2d72657061697261626c65fbffffffffffffff0200"
                   "0000"},
    {"inject_fault", "020000000100000009000000646d615f61626f72740600000074656e736f7203"
                     "000000"},
    {"reset_device", "0f000000"},
    {"reset_started", "0f000000616c72656164795f70656e64696e67"},
    {"set_repair_state", "0400000002000000"},
    {"fail_resets", "020000000000000000ffffff"},
    {"emit_debug", "0500000070110100060000006c61796572300800000062666c6f617431360300"
                   "000004000000000000000400000000000000020000000000000001000000"},
    {"debug_emitted", "000001000000000070110000000000000300000000000000"},
    {"advance", "0010a5d4e8000000"},
    {"advanced", "dee3000000000000"},
    {"empty_body", ""},
};

} // namespace neuron::protocol::testing
