#include "neuron/recording/commands.h"

#include "neuron/common/printable.h"
#include "neuron/common/regular_file.h"
#include "neuron/common/safe_output_file.h"
#include "neuron/common/yaml_fields.h"
#include "neuron/recording/recording_file.h"
#include "neuron/recording/tree_diff.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>

namespace neuron::recording {
namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;
constexpr std::string_view default_root = "/sys/devices/virtual/neuron_device";
constexpr std::uint64_t max_recording_bytes = std::uint64_t{256} << 20; // the largest host's is a few MiB

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string value_of(std::span<const std::string> args, std::size_t& i) {
    if (i + 1 >= args.size()) throw usage_error(fmt::format("{} needs a value", args[i]));
    return args[++i];
}

std::uint32_t count_of(const std::string& option, const std::string& text) {
    std::uint32_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n > max_samples) {
        throw usage_error(
            fmt::format("{} takes a count from 0 to {}, not '{}'", option, max_samples, common::printable(text, 40)));
    }
    return n;
}

// "1s", "250ms", "100us", "5000ns"; a bare number is seconds.
std::chrono::nanoseconds duration_of(const std::string& option, const std::string& text) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    std::uint64_t scale = 0;
    if (unit.empty() || unit == "s") scale = 1'000'000'000;
    if (unit == "ms") scale = 1'000'000;
    if (unit == "us") scale = 1'000;
    if (unit == "ns") scale = 1;
    constexpr std::uint64_t max_ns = std::uint64_t{24} * 3600 * 1'000'000'000;
    if (ec != std::errc() || end == text.data() || scale == 0 || n > max_ns / scale) {
        throw usage_error(fmt::format("{} takes a duration such as 1s, 250ms or 100us (at most a day), not '{}'",
                                      option, common::printable(text, 40)));
    }
    return std::chrono::nanoseconds(n * scale);
}

template <typename Body>
int guarded(const std::string& program, const std::string& command, Body&& body) {
    const auto say = [&](const std::exception& e, int code) {
        fmt::print(stderr, "{}: {}: {}\n", program, command, common::printable_message(e.what()));
        return code;
    };
    try {
        return body();
    } catch (const usage_error& e) {
        return say(e, exit_usage);
    } catch (const common::yaml_error& e) {
        return say(e, exit_usage);
    } catch (const common::file_error& e) {
        return say(e, exit_usage);
    } catch (const recording_error& e) {
        return say(e, exit_usage);
    } catch (const std::exception& e) { // writing failed, out of memory
        return say(e, exit_failure);
    }
}

} // namespace

int run_record(std::span<const std::string> args, const std::string& program) {
    return guarded(program, "record", [&] {
        record_options o;
        o.root = default_root;
        std::string output;
        std::optional<std::string> release;
        bool interval_given = false;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const auto& a = args[i];
            if (a == "--help" || a == "-h") {
                fmt::print(
                    "usage: {} record [--sysfs-root R] [--driver-version V] -o FILE|- [--samples N --interval T]\n"
                    "Walks a Neuron driver's sysfs tree (default {}) without writing to it and writes what it is:\n"
                    "structure, modes, links, values, failed reads, counters, and the host's identity.\n",
                    program, default_root);
                return 0;
            }
            if (a == "--sysfs-root") {
                o.root = value_of(args, i);
            } else if (a == "--driver-version") {
                release = value_of(args, i);
            } else if (a == "-o" || a == "--output") {
                output = value_of(args, i);
            } else if (a == "--samples") {
                o.samples = count_of(a, value_of(args, i));
            } else if (a == "--interval") {
                o.interval = duration_of(a, value_of(args, i));
                interval_given = true;
            } else {
                throw usage_error(fmt::format("unknown option '{}'", common::printable(a, 100)));
            }
        }
        if (output.empty()) throw usage_error("say where to write the recording: -o FILE (or -o - for stdout)");
        if (interval_given && o.samples == 0) throw usage_error("--interval goes with --samples N");
        std::error_code ec;
        if (!std::filesystem::equivalent(o.root, default_root, ec)) o.module_version.clear();
        auto r = record_tree(o);
        if (release) r.driver_release = ascii(*release);
        const auto text = write_recording(r);
        if (output == "-") {
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
                throw std::runtime_error("cannot write the recording to stdout");
            }
            return 0;
        }
        try {
            common::replace_output_file(output, text, 0666); // whole or not at all
        } catch (const common::file_error& e) {
            throw std::runtime_error(e.what()); // the output's failure, not the input's: exit 1
        }
        fmt::print(stderr, "{}: {} entries of {} device{} ({}) written to {}\n", common::printable(o.root),
                   r.entries.size(), r.device_count, r.device_count == 1 ? "" : "s",
                   r.instance_type.empty() ? "instance type unknown" : r.instance_type, common::printable(output));
        return 0;
    });
}

int run_diff(std::span<const std::string> args, const std::string& program) {
    return guarded(program, "diff", [&] {
        diff_options o;
        std::vector<std::string> sides;
        for (const auto& a : args) {
            if (a == "--help" || a == "-h") {
                fmt::print(
                    "usage: {} diff A B [--values]\n"
                    "A and B: each a recording (record -o FILE) or a tree (a directory: a host's, a served mount).\n"
                    "Exit 0 when they do not differ, 1 when they do; counters' values count only with --values.\n",
                    program);
                return 0;
            }
            if (a == "--values") {
                o.values = true;
            } else if (a.starts_with("-") && a != "-") {
                throw usage_error(fmt::format("unknown option '{}'", common::printable(a, 100)));
            } else {
                sides.push_back(a);
            }
        }
        if (sides.size() != 2) throw usage_error("give two recordings or trees to compare: diff A B");
        const auto a = load_recording(sides[0]); // A's problems first
        const auto b = load_recording(sides[1]);
        const auto d = diff_recordings(a, b, o);
        if (d.empty()) {
            fmt::print("no differences\n");
            return 0;
        }
        fmt::print("A: {}\nB: {}\n{}", common::printable(sides[0]), common::printable(sides[1]), format_differences(d));
        return exit_failure;
    });
}

tree_recording load_recording(const std::string& what) {
    std::error_code ec;
    if (std::filesystem::is_directory(what, ec)) {
        record_options o;
        o.root = what;
        if (!std::filesystem::equivalent(what, default_root, ec)) o.module_version.clear();
        return record_tree(o);
    }
    return read_recording(common::read_regular_file(what, max_recording_bytes), what);
}

} // namespace neuron::recording
