#pragma once

// Model files written in a test: parse one, find where a piece of it is
// written, and check one is refused there with a message.

#include "neuron/common/yaml_fields.h"
#include "neuron/control/model_file.h"
#include "neuron/model/program/kernel.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>

namespace neuron::control::testing {

inline const std::string header = "neuron_emu_model: 1\nname: m\n";

inline const model::kernel_stream& stream(const model::kernel& k, model::engine_kind e) {
    return k.streams[static_cast<std::size_t>(e)];
}

// The model's program, which outlives the model.
inline std::shared_ptr<const model::kernel> program_of(const control::model_definition& m) {
    BOOST_TEST_REQUIRE(static_cast<bool>(m.program));
    return m.program;
}

// "model:LINE:COLUMN" of `needle` in `text` (its first match).
inline std::string at(std::string_view text, std::string_view needle) {
    const auto found = text.find(needle);
    BOOST_TEST_REQUIRE(found != std::string_view::npos, "'" << needle << "' is not in the test text");
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < found; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return fmt::format("model:{}:{}", line, found - line_start + 1);
}

// The program (after the header) is refused at `needle` with a message containing `what`.
inline void refused(const std::string& program, std::string_view needle, const std::string& what) {
    const auto text = header + program;
    try {
        (void)control::parse_model_file(text);
        BOOST_ERROR("accepted:\n" << text);
    } catch (const common::yaml_error& e) {
        const std::string message = e.what();
        const auto where = at(text, needle);
        BOOST_TEST(message.starts_with(where + ": "), "expected at " << where << ", got: " << message);
        BOOST_TEST(message.find(what) != std::string::npos, "expected '" << what << "' in: " << message);
    }
}

} // namespace neuron::control::testing
