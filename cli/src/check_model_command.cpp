#include "check_model_command.h"

#include "usage_error.h"

#include "neuron/common/printable.h"
#include "neuron/common/regular_file.h"
#include "neuron/common/yaml_fields.h"
#include "neuron/control/model_file.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/instance_catalogue.h"

#include <fmt/format.h>

#include <vector>

namespace neuron::cli {
namespace {

constexpr int exit_bad_input = 2;                             // as for any bad input (README)
constexpr std::string_view default_instance = "trn1.2xlarge"; // as `run`

constexpr std::string_view help_text =
    "usage: neuron-emu check-model [--instance TYPE] FILE...\n\n"
    "Checks emulated model files (runtime_shim/MODEL_FILE.md) as nrt_load would, and binds each program to the\n"
    "instance's device generation (--instance, default trn1.2xlarge; see 'neuron-emu instances'). Exit status: 0\n"
    "when every file is a valid model, 2 when one is not (or cannot be read), 1 on any other failure.\n";

struct check_options {
    std::string instance{default_instance};
    std::vector<std::string> files;
};

check_options parse(std::span<const std::string> args) {
    check_options out;
    bool options_end = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& arg = args[i];
        if (options_end || !arg.starts_with("-") || arg == "-") {
            out.files.push_back(arg);
        } else if (arg == "--") {
            options_end = true;
        } else if (arg == "--help" || arg == "-h") {
            throw help_requested(std::string(help_text));
        } else if (arg == "--instance") {
            if (i + 1 == args.size()) throw usage_error("check-model: --instance needs a value");
            out.instance = args[++i];
        } else if (arg.starts_with("--instance=")) {
            out.instance = arg.substr(11);
        } else {
            throw usage_error(fmt::format("check-model: unknown option '{}'", common::printable(arg, 200)));
        }
    }
    if (out.files.empty()) throw usage_error("check-model: give one or more model files");
    return out;
}

// ", a program of N instructions (tensor 1024, scalar 128, sync 20)", or
// nothing; a looped one says how many it runs and how many are written.
std::string program_summary(const model::compiled_model& m) {
    if (!m.program) return "";
    std::string engines;
    std::uint64_t written = 0;
    bool looped = false;
    for (const auto& s : m.program->streams) {
        written += s.text().size();
        looped = looped || s.looped();
    }
    for (std::size_t e = 0; e < model::engine_count; ++e) {
        const auto n = m.program->streams[e].size();
        if (n == 0) continue;
        engines += fmt::format("{}{} {}", engines.empty() ? "" : ", ",
                               model::engine_name(static_cast<model::engine_kind>(e)), n);
    }
    if (looped) {
        return fmt::format(", a program of {} instructions run, {} written in loops ({})",
                           m.program->instruction_count(), written, engines);
    }
    return fmt::format(", a program of {} instructions ({})", m.program->instruction_count(), engines);
}

} // namespace

int run_check_model(std::span<const std::string> args) {
    const auto options = parse(args);
    const auto& spec = model::find_instance_type(options.instance).spec(); // names the valid types when unknown
    bool all_valid = true;
    for (const auto& path : options.files) {
        try {
            // nrt_load sends no larger file; reading one more byte tells a larger one.
            const auto text = common::read_regular_file(path, control::max_model_file_bytes);
            const auto m = control::parse_model_file(text, path);
            // What nrt_load on this instance would refuse: its errors say FILE:LINE:COLUMN themselves.
            (void)model::build_program(m, spec);
            std::size_t inputs = 0;
            for (const auto& t : m.tensors) inputs += t.usage == protocol::tensor_usage::input ? 1 : 0;
            fmt::print("{}: model '{}': {} inputs, {} outputs, {} memory entries, {} prints, {} fault triggers{}\n",
                       common::printable(path), common::printable(m.name), inputs, m.tensors.size() - inputs,
                       m.memory.size(), m.prints.size(), m.faults.size(), program_summary(m));
        } catch (const common::file_error& e) {
            fmt::print(stderr, "neuron-emu: check-model: {}\n", e.what());
            all_valid = false;
        } catch (const common::yaml_error& e) {
            fmt::print(stderr, "{}\n", common::printable_message(e.what()));
            all_valid = false;
        } catch (const model::model_error& e) {
            const std::string message = e.what();
            const bool placed = message.starts_with(path + ":");
            fmt::print(stderr, "{}{}\n", placed ? "" : common::printable(path) + ": ",
                       common::printable_message(message));
            all_valid = false;
        }
    }
    return all_valid ? 0 : exit_bad_input;
}

} // namespace neuron::cli
