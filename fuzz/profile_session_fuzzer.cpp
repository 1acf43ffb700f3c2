// Profile session files (profile/include/neuron/profile/session_file.h): any
// bytes to decode_session, as `neuron-emu profile view` reads a file. A
// session_error is the expected answer to bad input; anything else escaping,
// a crash or a blow-up of memory is a finding. A file that decodes is encoded
// again, and those bytes must decode to the same executions: encoding is
// deterministic and keeps every field a decoded timeline can hold, so "the
// same" is "encodes to the same bytes again". The decoded timelines are then
// shown as every text view shows them, since the views index with the values
// the decoder let through.

#include "neuron/profile/session_file.h"
#include "neuron/profile/summary_views.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace neuron::profile;

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "profile_session_fuzzer: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)looks_like_session(bytes);
    std::vector<core_timeline> timelines;
    try {
        timelines = decode_session(bytes);
    } catch (const session_error&) {
        return 0;
    }
    if (timelines.empty()) finding("a file of no execution decodes");

    const auto again = encode_session(timelines);
    std::vector<core_timeline> round_trip;
    try {
        round_trip = decode_session(again);
    } catch (const session_error& e) {
        std::fprintf(stderr, "profile_session_fuzzer: %s\n", e.what());
        finding("a decoded file encodes to bytes the decoder refuses");
    }
    if (round_trip.size() != timelines.size()) finding("a decoded file encodes to another number of executions");
    if (encode_session(round_trip) != again) finding("a decoded file encodes to bytes that decode to other executions");

    (void)summary_text(timelines);
    (void)summary_json(timelines);
    (void)profile_json(timelines);
    return 0;
}
