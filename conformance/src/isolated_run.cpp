#include "neuron/conformance/isolated_run.h"

#include "neuron/conformance/scenario_executor.h"
#include "neuron/sysfs/mount_point.h"
#include "record_line.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace neuron::conformance {
namespace {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;

constexpr std::size_t detail_lines = 30;

volatile std::sig_atomic_t g_stop = 0;

// The scenario's side of the fork: runs it and reports.
[[noreturn]] void run_in_child(int report_fd, const scenario& s, const target_description& target,
                               const tool_paths& tools, const std::string& directory) {
    int code = 0;
    if (s.setup.refused) {
        const auto problem = serve_refusal(target, s, directory, tools);
        send_record(report_fd, problem ? std::vector<std::string>{"fail", "", "setting up", *problem}
                                       : std::vector<std::string>{"pass"});
        ::close(report_fd);
        ::_exit(0);
    }
    try {
        auto session = target.what == target_description::kind::model ? open_model_session(target, s, directory, tools)
                                                                      : open_sysfs_session(target);
        // Before any runtime process starts, so that they see it too.
        const auto host_view =
            target.what == target_description::kind::model && s.requires_.contains(capability::host_paths)
                ? enter_host_view(target, directory)
                : nullptr;
        bool failed = false;
        {
            scenario_executor executor(s, target, *session, tools, directory,
                                       [&](const source_location& where, const std::string& step) {
                                           send_record(report_fd, {"step", where.str(), step});
                                       });
            try {
                executor.run();
            } catch (const step_failure& f) {
                // At once: ending the processes and the emulator may take long.
                send_record(report_fd, {"fail", f.where().str(), f.step(), f.what()});
                failed = true;
            }
        }
        const auto problem = session->finish();
        if (failed && problem) {
            send_record(report_fd, {"note", *problem});
        } else if (problem) {
            send_record(report_fd, {"fail", "", "after the steps", *problem});
        } else if (!failed) {
            send_record(report_fd, {"pass"});
        }
    } catch (const std::exception& e) {
        send_record(report_fd, {"fail", "", "setting up", e.what()});
        code = 1;
    }
    ::close(report_fd);
    std::fflush(nullptr);
    ::_exit(code);
}

// Kills what is left of the scenario's process group and reaps it (the
// runner is a subreaper: orphans come back to it).
void end_group(pid_t group) {
    const auto deadline = clock::now() + std::chrono::seconds(10);
    for (;;) {
        ::kill(-group, SIGKILL);
        while (::waitpid(-1, nullptr, WNOHANG) > 0) {}
        if (::kill(-group, 0) != 0 && errno == ESRCH) return;
        if (clock::now() > deadline) return;
        // Killed processes take a moment to become reapable; nothing signals that here.
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

std::string last_lines(const std::string& path, std::size_t count) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
    std::string out;
    for (const auto& l : lines) out += "    " + l + "\n";
    return out;
}

// What the emulator and the runtime processes wrote to stderr.
std::string collect_details(const std::string& directory) {
    std::string out;
    std::error_code ignored;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(directory, ignored)) {
        if (entry.path().extension() == ".stderr" && entry.file_size(ignored) > 0) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        out += fmt::format("  {} (last lines):\n{}", f.filename().string(), last_lines(f.string(), detail_lines));
    }
    return out;
}

} // namespace

void request_stop() { g_stop = 1; }
bool stop_requested() { return g_stop != 0; }

std::string_view verdict_name(verdict v) {
    switch (v) {
    case verdict::pass: return "PASS";
    case verdict::fail: return "FAIL";
    case verdict::skip: return "SKIP";
    }
    return "?";
}

scenario_outcome run_isolated(const scenario& s, const target_description& target, const tool_paths& tools,
                              nanoseconds timeout) {
    const auto started = clock::now();
    scenario_outcome outcome;
    std::string directory_template = (fs::temp_directory_path() / "neuron-conformance.XXXXXX").string();
    if (::mkdtemp(directory_template.data()) == nullptr) {
        outcome.result = verdict::fail;
        outcome.reason = fmt::format("cannot make a temporary directory: {}", std::strerror(errno));
        return outcome;
    }
    // As mountinfo shows it: without symbolic links or relative parts in TMPDIR.
    char resolved[PATH_MAX];
    const std::string directory =
        ::realpath(directory_template.c_str(), resolved) != nullptr ? resolved : directory_template;
    // Other users must reach the mount inside (as_user steps): mkdtemp gives 0700.
    ::chmod(directory.c_str(), 0755);
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) {
        outcome.result = verdict::fail;
        outcome.reason = fmt::format("pipe: {}", std::strerror(errno));
        fs::remove_all(directory);
        return outcome;
    }
    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child == 0) {
        ::setpgid(0, 0);
        ::close(report[0]);
        run_in_child(report[1], s, target, tools, directory);
    }
    ::close(report[1]);
    if (child > 0) ::setpgid(child, child); // also here: no race with the child's own call

    record_reader records;
    std::string last_step;
    std::string last_where;
    std::optional<std::vector<std::string>> final_record;
    std::string notes;
    bool timed_out = false;
    const auto deadline = started + timeout;
    bool stopped = false;
    while (child > 0) {
        if (stop_requested()) {
            stopped = true;
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{report[0], POLLIN, 0};
        const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) continue;
        char buffer[4096];
        const auto got = ::read(report[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        records.add(std::string_view(buffer, static_cast<std::size_t>(got)));
        for (std::vector<std::string> fields; records.next(fields);) {
            if (fields[0] == "step" && fields.size() == 3) {
                last_where = fields[1];
                last_step = fields[2];
            } else if (fields[0] == "note" && fields.size() == 2) {
                notes += "  after the failure: " + fields[1] + "\n";
            } else {
                final_record = fields;
            }
        }
    }
    ::close(report[0]);
    int status = 0;
    if (child > 0) {
        if (timed_out || stopped) ::kill(-child, SIGKILL);
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        end_group(child);
    }

    for (const auto& point : sysfs::mounts_at_or_below(directory)) ::umount2(point.c_str(), MNT_DETACH);

    const bool exited_cleanly = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (child < 0) {
        outcome.result = verdict::fail;
        outcome.reason = fmt::format("fork: {}", std::strerror(errno));
    } else if (final_record && (*final_record)[0] == "fail" && final_record->size() == 4) {
        // A failure already reported stands, even if the clean-up ran out of time.
        outcome.result = verdict::fail;
        outcome.where = (*final_record)[1];
        outcome.step = (*final_record)[2];
        outcome.reason = (*final_record)[3];
        if (timed_out)
            notes += fmt::format("  ending its processes took past the {} timeout\n", format_duration(timeout));
    } else if (stopped) {
        outcome.result = verdict::fail;
        outcome.reason = "interrupted (the runner was asked to stop)";
        outcome.step = last_step;
        outcome.where = last_where;
    } else if (timed_out) {
        outcome.result = verdict::fail;
        outcome.reason = fmt::format("timed out after {}", format_duration(timeout));
        outcome.step = last_step.empty() ? "setting up" : last_step;
        if (!last_where.empty()) outcome.reason += " in this step";
        outcome.where = last_where;
    } else if (final_record && (*final_record)[0] == "pass" && exited_cleanly) {
        outcome.result = verdict::pass;
    } else {
        outcome.result = verdict::fail;
        outcome.reason = fmt::format("the scenario's process ended without a verdict ({}), last in step {}",
                                     WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                                         : fmt::format("exit {}", WEXITSTATUS(status)),
                                     last_step.empty() ? "(none)" : last_step);
    }
    const auto left_mounted = sysfs::mounts_at_or_below(directory);
    if (!left_mounted.empty()) {
        notes += fmt::format("  could not detach {} mount(s) under {}; the directory is left\n", left_mounted.size(),
                             directory);
        if (outcome.result == verdict::pass) {
            outcome.result = verdict::fail;
            outcome.reason = "a mount under the scenario's directory could not be detached";
        }
    }
    if (outcome.result == verdict::fail) outcome.details = notes + collect_details(directory);
    std::error_code ignored;
    if (left_mounted.empty()) fs::remove_all(directory, ignored);
    outcome.duration = clock::now() - started;
    return outcome;
}

} // namespace neuron::conformance
