#include "check_model_command.h"

#include "usage_error.h"

#include "neuron/common/yaml_fields.h"
#include "neuron/control/model_file.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace neuron::cli {

int run_check_model(std::span<const std::string> args) {
    if (args.empty()) throw usage_error("check-model: give one or more model files");
    int status = 0;
    for (const auto& path : args) {
        if (path == "--help" || path == "-h") {
            throw help_requested("usage: neuron-emu check-model FILE...\n\nChecks emulated model files "
                                 "(runtime_shim/MODEL_FILE.md) as nrt_load would.\n");
        }
        std::ifstream in(path);
        if (!in) {
            fmt::print(stderr, "neuron-emu: check-model: cannot read {}\n", path);
            status = 1;
            continue;
        }
        std::ostringstream text;
        text << in.rdbuf();
        try {
            const auto m = control::parse_model_file(text.str(), path);
            std::size_t inputs = 0;
            for (const auto& t : m.tensors) inputs += t.usage == protocol::tensor_usage::input ? 1 : 0;
            fmt::print("{}: model '{}': {} inputs, {} outputs, {} memory entries, {} prints, {} fault triggers\n", path,
                       m.name, inputs, m.tensors.size() - inputs, m.memory.size(), m.prints.size(), m.faults.size());
        } catch (const common::yaml_error& e) {
            fmt::print(stderr, "{}\n", e.what());
            status = 1;
        }
    }
    return status;
}

} // namespace neuron::cli
