#include "profile_command.h"

#include "arguments.h"
#include "profile_capture.h"
#include "usage_error.h"

#include "neuron/common/printable.h"
#include "neuron/common/regular_file.h"
#include "neuron/common/safe_output_file.h"
#include "neuron/common/yaml_fields.h"
#include "neuron/control/model_file.h"
#include "neuron/control/neff_model.h"
#include "neuron/model/spec/logical_cores.h"
#include "neuron/neff/neff_file.h"
#include "neuron/profile/perfetto_view.h"
#include "neuron/profile/profile_diff.h"
#include "neuron/profile/session_file.h"
#include "neuron/profile/session_files.h"
#include "neuron/profile/summary.h"
#include "neuron/profile/summary_views.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>

namespace neuron::cli {
namespace {

constexpr int exit_failure = 1;
constexpr int exit_bad_input = 2;
// Executions a capture runs before the one it profiles, at most.
constexpr std::uint64_t max_nth_execution = 1'000'000;

constexpr std::string_view help_text =
    "usage: neuron-emu profile capture -n MODEL [-s FILE] [--instance TYPE] [OPTIONS] [NAME FILE ...]\n"
    "       neuron-emu profile view (-s FILE | -d DIR) [--output-format FORMAT] [--output-file FILE]\n"
    "       neuron-emu profile diff [--json] A B\n\n"
    "Profiles an emulated model on an emulated instance, instruction by instruction, and shows the profile\n"
    "in neuron-profile's formats (summary-text, summary-json, json, perfetto). Session files are neuron-emu's\n"
    "own format (docs/profile-session-format.md). Run 'neuron-emu profile COMMAND --help' for its options.\n";

// A failure that is the input's fault (exit 2) or the run's (exit 1),
// already worded for stderr.
struct command_failure {
    int status;
    std::string message;
};

// The executions of session files, as the views read them; what is wrong
// with a file is the input's fault.
template <typename Read>
auto reading_sessions(Read&& read) {
    try {
        return read();
    } catch (const common::file_error& e) {
        throw command_failure{exit_bad_input, e.what()};
    } catch (const profile::session_error& e) {
        throw command_failure{exit_bad_input, e.what()};
    }
}

std::vector<profile::core_timeline> read_session(const std::string& path) {
    return reading_sessions([&] { return profile::session_files({path}).all(); });
}

// Where a view's output goes, written as the view makes it ('-': stdout).
void write_output(const std::string& path, const std::function<void(const profile::output&)>& view) {
    if (path == "-") {
        view([](std::string_view piece) { std::fwrite(piece.data(), 1, piece.size(), stdout); });
        return;
    }
    const auto failed = [](const common::file_error& e) { return command_failure{exit_failure, e.what()}; };
    try {
        common::output_file file(path);
        view([&](std::string_view piece) {
            try {
                file.write(piece);
            } catch (const common::file_error& e) { // not the input's fault, whoever is reading
                throw failed(e);
            }
        });
        file.close();
    } catch (const common::file_error& e) {
        throw failed(e);
    }
}

void write_output(const std::string& path, std::string_view bytes) {
    write_output(path, [&](const profile::output& out) { out(bytes); });
}

std::uint32_t small_number(const argument_parser::result& r, std::string_view name) {
    const auto v = r.unsigned_value(name);
    if (v > UINT32_MAX) throw usage_error(fmt::format("profile capture: --{} {} is too large", name, v));
    return static_cast<std::uint32_t>(v);
}

// ---- capture

argument_parser capture_parser() {
    argument_parser p("profile capture");
    p.option("neff", "MODEL", "the emulated model file to run (runtime_shim/MODEL_FILE.md)")
        .option("session-file", "FILE",
                "where the profile goes ('-': stdout); with workers, their files go beside it, or into it if it is a "
                "directory",
                "profile.ntff")
        .option("instance", "TYPE", "the emulated instance type (neuron-emu instances)", "trn1.2xlarge")
        .flag("ignore-exec-errors", "keep going, and write the profile, when an execution fails")
        .option("profile-nth-exec", "N", "profile the Nth execution (runs N)", "1")
        .option("collectives-workers-per-node", "N", "run N workers, one per NeuronCore; profile_rank_<i>.ntff each")
        .option("collectives-profile-id", "ID|all", "the rank to profile", "all")
        .option("collectives-worker-start-id", "N", "the rank of this node's first worker", "0")
        .option("collectives-worker-count", "N", "workers on every node together")
        .alias("-n", "neff")
        .alias("-s", "session-file")
        .alias("-r", "collectives-workers-per-node")
        .positionals("NAME FILE ...", "input tensors by name (their data does not change what the model does)");
    return p;
}

// An emulated model file or a NEFF, loaded on `instance` as the runtime
// would with its default LNC.
control::model_definition read_model(const std::string& path, const std::string& instance) {
    std::string text;
    try {
        text = common::read_regular_file(path, protocol::max_neff_bytes);
    } catch (const common::file_error& e) {
        throw command_failure{exit_bad_input, e.what()};
    }
    if (neff::looks_like_neff(text)) {
        try {
            const auto& type = model::find_instance_type(instance);
            return control::define_neff(neff::read_neff(text),
                                        control::scratchpad_layout_for(type, model::default_lnc(type), false, 0));
        } catch (const neff::neff_error& e) {
            throw command_failure{exit_bad_input, fmt::format("{}: {}", common::printable(path), e.what())};
        }
    }
    if (!control::looks_like_model_file(text)) {
        throw command_failure{exit_bad_input, fmt::format("{}: neither a NEFF nor an emulated model file "
                                                          "(runtime_shim/MODEL_FILE.md)",
                                                          common::printable(path))};
    }
    try {
        return control::parse_model_file(text, path);
    } catch (const common::yaml_error& e) {
        throw command_failure{exit_bad_input, common::printable_message(e.what())};
    }
}

void check_inputs(const control::model_definition& m, const std::vector<std::string>& words) {
    if (words.size() % 2 != 0) {
        throw usage_error(fmt::format("profile capture: inputs go in NAME FILE pairs; '{}' has no file",
                                      common::printable(words.back(), 200)));
    }
    for (std::size_t i = 0; i < words.size(); i += 2) {
        const auto& name = words[i];
        const bool known = std::any_of(m.tensors.begin(), m.tensors.end(), [&](const protocol::model_tensor& t) {
            return t.usage == protocol::tensor_usage::input && t.name == name;
        });
        if (!known) {
            throw command_failure{exit_bad_input, fmt::format("model '{}' has no input named '{}'",
                                                              common::printable(m.name), common::printable(name, 200))};
        }
        std::error_code ec;
        if (!std::filesystem::is_regular_file(words[i + 1], ec)) {
            throw command_failure{exit_bad_input,
                                  fmt::format("input '{}': {}: not a readable regular file",
                                              common::printable(name, 200), common::printable(words[i + 1]))};
        }
    }
}

capture_plan plan_of(const argument_parser::result& r) {
    capture_plan plan;
    plan.instance = r.value("instance");
    plan.ignore_errors = r.has("ignore-exec-errors");
    plan.nth = r.unsigned_value("profile-nth-exec");
    if (plan.nth == 0 || plan.nth > max_nth_execution) {
        throw usage_error(fmt::format("profile capture: --profile-nth-exec is 1 to {}", max_nth_execution));
    }
    if (r.has("collectives-workers-per-node")) plan.workers = small_number(r, "collectives-workers-per-node");
    if (plan.workers == 0) throw usage_error("profile capture: --collectives-workers-per-node is at least 1");
    plan.first_rank = small_number(r, "collectives-worker-start-id");
    const std::uint64_t last = std::uint64_t{plan.first_rank} + plan.workers - 1;
    if (last > UINT32_MAX) {
        throw usage_error(fmt::format("profile capture: ranks {} to {} go past {}", plan.first_rank, last, UINT32_MAX));
    }
    if (r.has("collectives-worker-count") && last >= r.unsigned_value("collectives-worker-count")) {
        throw usage_error(fmt::format("profile capture: ranks {} to {} do not fit --collectives-worker-count {}",
                                      plan.first_rank, last, r.value("collectives-worker-count")));
    }
    if (const auto& id = r.value("collectives-profile-id"); id != "all") {
        const auto rank = small_number(r, "collectives-profile-id");
        if (rank < plan.first_rank || rank > last) {
            throw usage_error(fmt::format("profile capture: rank {} does not run on this node (ranks {} to {})", rank,
                                          plan.first_rank, last));
        }
        plan.profiled_rank = rank;
    }
    return plan;
}

int run_capture(std::span<const std::string> args) {
    const auto r = capture_parser().parse(args);
    const auto plan = plan_of(r);
    const auto model = read_model(r.value("neff"), plan.instance);
    check_inputs(model, r.positional());
    std::vector<captured_profile> profiles;
    try {
        profiles = capture(model, plan);
    } catch (const capture_error& e) {
        throw command_failure{exit_failure, e.what()};
    }
    const std::filesystem::path session = r.value("session-file");
    const bool per_rank = r.has("collectives-workers-per-node");
    // Workers' files go beside the session file, or into it when it names a directory.
    std::error_code ec;
    const auto rank_dir = std::filesystem::is_directory(session, ec) ? session : session.parent_path();
    for (const auto& p : profiles) {
        const auto path =
            per_rank ? (rank_dir / fmt::format("profile_rank_{}.ntff", p.rank)).string() : session.string();
        write_output(path, profile::encode_session(std::span(&p.timeline, 1)));
        const auto& t = p.timeline;
        // A session written to stdout keeps stdout for itself.
        fmt::print(path == "-" ? stderr : stdout, "{}: '{}' execution {} on {} nd{} nc{}: {} instructions, {} ns\n",
                   common::printable(path), common::printable(t.model_name), t.execution, t.instance_type, t.device,
                   t.core, t.instructions.size(), profile::to_ns(t.end_ps) - profile::to_ns(t.start_ps));
    }
    return 0;
}

// ---- view

argument_parser view_parser() {
    argument_parser p("profile view");
    p.option("neff-path", "MODEL", "accepted as neuron-profile takes it; the session file holds all a view needs")
        .option("session-file", "FILE", "the profile to show")
        .option("session-dir", "DIR", "a directory of profiles (profile_rank_<i>.ntff, or any *.ntff)")
        .option("output-format", "FORMAT", "summary-text, summary-json, json or perfetto", "summary-text")
        .option("output-file", "FILE",
                "where to write ('-': stdout; default: stdout for summaries, ntff.json, ntff.pftrace)")
        .flag("show-perfetto-flows", "link each wait to the semaphore add that ended it (perfetto)")
        .alias("-n", "neff-path")
        .alias("-s", "session-file")
        .alias("-d", "session-dir");
    return p;
}

// The rank in "profile_rank_<i>.ntff", if the name is one.
std::optional<std::uint64_t> rank_of(const std::string& name) {
    constexpr std::string_view prefix = "profile_rank_";
    constexpr std::string_view suffix = ".ntff";
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
    const auto digits = std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    std::uint64_t rank = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return rank;
}

std::vector<std::string> sessions_in(const std::string& dir) {
    std::vector<std::pair<std::pair<std::uint64_t, std::string>, std::string>> found;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (!name.ends_with(".ntff") || !it->is_regular_file(ec)) continue;
        found.push_back({{rank_of(name).value_or(UINT64_MAX), name}, it->path().string()});
    }
    if (ec) throw command_failure{exit_bad_input, fmt::format("{}: {}", common::printable(dir), ec.message())};
    if (found.empty())
        throw command_failure{exit_bad_input, fmt::format("{}: no *.ntff profiles", common::printable(dir))};
    std::sort(found.begin(), found.end());
    std::vector<std::string> paths;
    for (auto& f : found) paths.push_back(std::move(f.second));
    return paths;
}

int run_view(std::span<const std::string> args) {
    const auto r = view_parser().parse(args);
    if (r.has("session-file") == r.has("session-dir")) {
        throw usage_error("profile view: give one of -s FILE or -d DIR");
    }
    const auto& format = r.value("output-format");
    const bool summary = format == "summary-text" || format == "summary-json";
    if (!summary && format != "json" && format != "perfetto") {
        throw usage_error(fmt::format("profile view: --output-format {} is not one of summary-text, summary-json, "
                                      "json, perfetto{}",
                                      common::printable(format, 100),
                                      format == "db" ? " (neuron-emu writes no InfluxDB database)" : ""));
    }
    const profile::session_files sessions(r.has("session-file") ? std::vector{r.value("session-file")}
                                                                : sessions_in(r.value("session-dir")));
    const auto fallback = summary            ? std::string("-")
                          : format == "json" ? std::string("ntff.json")
                                             : std::string("ntff.pftrace");
    const auto target = r.has("output-file") ? r.value("output-file") : fallback;
    // Every file is checked before anything is written; the view reads them again.
    reading_sessions([&] { sessions.each([](const profile::core_timeline&) {}); });
    write_output(target, [&](const profile::output& out) {
        reading_sessions([&] {
            if (format == "summary-text") profile::summary_text(sessions, out);
            if (format == "summary-json") profile::summary_json(sessions, out);
            if (format == "json") profile::profile_json(sessions, out);
            if (format == "perfetto") profile::perfetto_trace(sessions, r.has("show-perfetto-flows"), out);
        });
    });
    if (target != "-") fmt::print("wrote {}\n", common::printable(target));
    return 0;
}

// ---- diff

int run_diff(std::span<const std::string> args) {
    argument_parser p("profile diff");
    p.flag("json", "print JSON instead of tables").positionals("A B", "two session files");
    const auto r = p.parse(args);
    if (r.positional().size() != 2) throw usage_error("profile diff: give two session files, A and B");
    const auto one = [](const std::string& path) {
        auto timelines = read_session(path);
        if (timelines.size() != 1) {
            throw command_failure{exit_bad_input, fmt::format("{} holds {} executions; diff compares one with one",
                                                              common::printable(path), timelines.size())};
        }
        return std::move(timelines.front());
    };
    const auto a = one(r.positional()[0]);
    const auto b = one(r.positional()[1]);
    write_output("-", r.has("json") ? profile::diff_json(a, b) : profile::diff_text(a, b));
    return 0;
}

} // namespace

int run_profile(std::span<const std::string> args) {
    if (args.empty() || args.front() == "--help" || args.front() == "-h" || args.front() == "help") {
        if (args.empty()) throw usage_error(std::string(help_text));
        throw help_requested(std::string(help_text));
    }
    const auto& verb = args.front();
    const auto rest = args.subspan(1);
    try {
        if (verb == "capture") return run_capture(rest);
        if (verb == "view") return run_view(rest);
        if (verb == "diff") return run_diff(rest);
    } catch (const command_failure& f) {
        fmt::print(stderr, "neuron-emu: profile {}: {}\n", common::printable(verb, 20),
                   common::printable_message(f.message));
        return f.status;
    }
    throw usage_error(
        fmt::format("profile: unknown command '{}' (capture, view or diff)", common::printable(verb, 200)));
}

} // namespace neuron::cli
