#define BOOST_TEST_MODULE model_file_upload
// A model file larger than one message, as the control server loads it: it
// arrives in model_pieces and is read off the I/O thread, runs as the same
// program written as a loop does, and what is wrong with one is refused
// with its line, leaving nothing staged.

#include "neuron/control/model_file.h"
#include "neuron/model/spec/nrt_status.h"
#include "support/server_harness.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

using namespace neuron;
using namespace neuron::control::testing;

namespace {

constexpr std::string_view head = "neuron_emu_model: 1\n"
                                  "name: flat\n"
                                  "inputs: [{name: a, dtype: float32, shape: [4]}]\n"
                                  "outputs: [{name: out, dtype: float32, shape: [4], copy: a}]\n"
                                  "program:\n"
                                  "  vector:\n";
constexpr std::string_view copy = "{op: tensor_copy, shape: [128, 64], dtype: bfloat16}";

// `count` copies on Vector, one a line (from line 7), then `tail`.
std::string flat_model(std::size_t count, std::string_view tail = {}) {
    std::string text(head);
    for (std::size_t i = 0; i < count; ++i) text += fmt::format("    - {}\n", copy);
    text += tail;
    return text;
}

std::uint64_t duration_of(harness& h, simple_client& c, std::uint32_t model_id, std::uint32_t request_id) {
    send_execute(c, request_id, model_id);
    h.advance(std::chrono::milliseconds(100));
    const auto e = wait_executed(c, request_id);
    BOOST_TEST(e.status == 0u);
    return e.duration_ns;
}

} // namespace

BOOST_FIXTURE_TEST_CASE(a_model_file_of_many_pieces_loads_and_runs_as_its_loop_does, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    const auto flat = flat_model(20'000);
    BOOST_TEST_REQUIRE(flat.size() > 8 * max_model_piece_bytes); // and 200 000 nodes: twice a scenario's limit
    const auto loaded = load_in_pieces(*r, flat);
    BOOST_TEST(loaded.name == "flat");
    const auto looped = load(*r, std::string(head) + fmt::format("    - loop: {{trips: 20000, body: [{}]}}\n", copy));
    BOOST_TEST(duration_of(*this, *r, loaded.model_id, 1) == duration_of(*this, *r, looped.model_id, 2));
    close_session(*r);
}

BOOST_FIXTURE_TEST_CASE(a_bad_model_file_in_pieces_is_refused_with_its_line_and_leaves_nothing, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    BOOST_CHECK_EXCEPTION(load_in_pieces(*r, flat_model(20'000, "    - {op: tensor_cpy}\n")), request_refused,
                          refused_with(nrt_status::invalid, "model:20007:"));
    // Over its node limit (an alias bomb, padded past one message).
    std::string bomb = std::string(head) + "    - &a0 [" + std::string(copy) + "]\n";
    for (int level = 1; level <= 7; ++level) {
        bomb += fmt::format("    - &a{} [", level);
        for (int i = 0; i < 10; ++i) bomb += fmt::format("{}*a{}", i == 0 ? "" : ", ", level - 1);
        bomb += "]\n";
    }
    bomb += "#" + std::string(2 * max_model_piece_bytes, 'x') + "\n";
    BOOST_CHECK_EXCEPTION(load_in_pieces(*r, bomb), request_refused,
                          refused_with(nrt_status::invalid, "more than 1000000 nodes"));
    // Over its size limit, whatever it holds.
    const auto huge = flat_model(0, "#" + std::string(max_model_file_bytes, 'x') + "\n");
    BOOST_CHECK_EXCEPTION(load_in_pieces(*r, huge), request_refused,
                          refused_with(nrt_status::invalid, fmt::format("a model file has at most {} bytes, not {}",
                                                                        max_model_file_bytes, huge.size())));
    BOOST_TEST(load(*r, add_yaml).name == "add"); // nothing of them is staged
    close_session(*r);
    BOOST_TEST(counter(0, 0, model::counter_kind::invalid_error).total == 3u);
}
