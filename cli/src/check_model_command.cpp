#include "check_model_command.h"

#include "usage_error.h"

#include "neuron/common/printable.h"
#include "neuron/common/regular_file.h"
#include "neuron/common/yaml_fields.h"
#include "neuron/control/model_file.h"

#include <fmt/format.h>

namespace neuron::cli {
namespace {

constexpr int exit_bad_input = 2; // as for any bad input (README)

} // namespace

int run_check_model(std::span<const std::string> args) {
    if (args.empty()) throw usage_error("check-model: give one or more model files");
    for (const auto& path : args) {
        if (path == "--help" || path == "-h") {
            throw help_requested("usage: neuron-emu check-model FILE...\n\nChecks emulated model files "
                                 "(runtime_shim/MODEL_FILE.md) as nrt_load would. Exit status: 0 when every file is "
                                 "a valid model,\n2 when one is not (or cannot be read), 1 on any other failure.\n");
        }
    }
    bool all_valid = true;
    for (const auto& path : args) {
        try {
            // nrt_load sends no larger file; reading one more byte tells a larger one.
            const auto text = common::read_regular_file(path, control::max_model_file_bytes);
            const auto m = control::parse_model_file(text, path);
            std::size_t inputs = 0;
            for (const auto& t : m.tensors) inputs += t.usage == protocol::tensor_usage::input ? 1 : 0;
            fmt::print("{}: model '{}': {} inputs, {} outputs, {} memory entries, {} prints, {} fault triggers\n",
                       common::printable(path), common::printable(m.name), inputs, m.tensors.size() - inputs,
                       m.memory.size(), m.prints.size(), m.faults.size());
        } catch (const common::file_error& e) {
            fmt::print(stderr, "neuron-emu: check-model: {}\n", e.what());
            all_valid = false;
        } catch (const common::yaml_error& e) {
            fmt::print(stderr, "{}\n", common::printable_message(e.what()));
            all_valid = false;
        }
    }
    return all_valid ? 0 : exit_bad_input;
}

} // namespace neuron::cli
