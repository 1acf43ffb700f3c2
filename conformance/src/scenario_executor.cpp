#include "executor_state.h"

#include "neuron/common/posix_names.h"
#include "neuron/model/spec/counter.h"
#include "neuron/sysfs/layout.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <thread>

namespace neuron::conformance {
namespace {

std::string shown(int error) { return error == 0 ? "success" : common::errno_name(error); }

std::string file_type(mode_t mode) {
    if (S_ISDIR(mode)) return "directory";
    if (S_ISLNK(mode)) return "link";
    if (S_ISREG(mode)) return "file";
    return "special file";
}

} // namespace

scenario_executor::scenario_executor(const scenario& s, const target_description& target, target_session& session,
                                     const tool_paths& tools, std::string directory, step_listener on_step)
        : m_runner(std::make_unique<runner>(s, target, session, tools, std::move(directory), std::move(on_step))) {}

scenario_executor::~scenario_executor() { m_runner->end_processes(); }

void scenario_executor::run() {
    m_runner->prepare();
    m_runner->run_list(m_runner->s.steps);
}

void scenario_executor::runner::prepare() {
    const auto models = directory + "/models";
    std::filesystem::create_directories(models);
    for (const auto& [name, text] : s.models) {
        const auto file = models + "/" + name + ".yaml";
        std::ofstream(file) << text;
        model_paths[name] = file;
    }
    if (s.setup.notify) {
        const auto file = session.root() + "/neuron0/info/notify_delay";
        if (const int error = write_file(file, *s.setup.notify ? "0\n" : "-1\n").error; error != 0) {
            throw step_failure({s.file, 1, 1}, "setup", fmt::format("writing {}: {}", file, common::errno_name(error)));
        }
    }
}

std::string scenario_executor::runner::describe(const step& st) const {
    // The step as written, its placeholders filled in where it has a path.
    const auto expanded = [&](const text_template& t) {
        try {
            return t.expand(values);
        } catch (const std::logic_error&) {
            return t.raw();
        }
    };
    return std::visit(
        [&](const auto& a) -> std::string {
            if constexpr (requires { a.path; }) {
                return fmt::format("{} {}", st.verb, expanded(a.path));
            } else {
                return st.summary;
            }
        },
        st.what);
}

std::uint32_t scenario_executor::runner::number(const text_template& t, std::string_view what) const {
    const auto text = t.expand(values);
    std::uint32_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        fail("{} must be a whole number, not '{}'", what, text);
    }
    return n;
}

void scenario_executor::runner::run_list(const step_list& steps) {
    for (const auto& st : steps) run(st);
}

void scenario_executor::runner::run(const step& st) {
    current = &st;
    if (on_step) on_step(st.where, describe(st));
    try {
        std::visit(*this, st.what);
    } catch (const step_failure&) {
        throw;
    } catch (const std::exception& e) {
        current = &st;
        fail(e.what());
    }
}

// ---- tree steps

void scenario_executor::runner::operator()(const read_step& r) {
    const auto file = path(r.path);
    if (r.part) {
        // Part of a file is not its value: later steps still compare with the last whole read.
        const auto now = read_file_part(file, *r.part, r.as_uid);
        if (r.expect.empty() && now.error != 0) fail("the read failed with {}", common::errno_name(now.error));
        if (const auto problem = r.expect.empty() ? std::nullopt : check_value(r.expect, values, now, std::nullopt)) {
            fail(*problem);
        }
        return;
    }
    const auto before = previous.contains(file) ? std::optional(previous.at(file)) : std::nullopt;
    const auto deadline = std::chrono::steady_clock::now() + r.within.value_or(nanoseconds(0));
    auto pause = std::chrono::microseconds(200);
    for (;;) {
        const auto now = read_file(file, r.as_uid);
        auto problem = r.expect.empty() ? std::nullopt : check_value(r.expect, values, now, before);
        if (!problem && r.expect.empty() && now.error != 0)
            problem = fmt::format("the read failed with {}", common::errno_name(now.error));
        if (!problem) {
            remember(file, now);
            return;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            remember(file, now);
            fail(r.within ? fmt::format("{} (still, after {})", *problem, format_duration(*r.within)) : *problem);
        }
        // A file has no event for "now it reads what it should": read again shortly.
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(20'000));
    }
}

void scenario_executor::runner::operator()(const write_step& w) {
    const auto value = w.value.expand(values);
    const auto r = write_file(path(w.path), value, w.as_uid);
    if (r.error != w.expect_errno) fail("expected {}, got {}", shown(w.expect_errno), shown(r.error));
    if (w.written && r.written != *w.written) {
        fail("expected write(2) of {} bytes to return {}, it returned {}", value.size(), *w.written, r.written);
    }
}

void scenario_executor::runner::operator()(const stat_step& st) {
    const auto r = stat_path(path(st.path));
    if (st.error) {
        if (r.error != *st.error) fail("expected {}, got {}", common::errno_name(*st.error), shown(r.error));
        return;
    }
    if (r.error != 0) fail("lstat failed with {}", common::errno_name(r.error));
    if (st.type && file_type(r.mode) != *st.type) fail("expected a {}, got a {}", *st.type, file_type(r.mode));
    if (st.mode && (r.mode & 07777) != *st.mode) fail("expected mode {:04o}, got {:04o}", *st.mode, r.mode & 07777);
    if (st.size && r.size != *st.size) fail("expected size {}, got {}", *st.size, r.size);
    if (st.link && r.link != st.link->expand(values))
        fail("expected a link to {}, got {}", quote_text(st.link->expand(values)), quote_text(r.link));
}

void scenario_executor::runner::operator()(const list_step& l) {
    auto r = list_directory(path(l.path));
    if (l.error) {
        if (r.error != *l.error) fail("expected {}, got {}", common::errno_name(*l.error), shown(r.error));
        return;
    }
    if (r.error != 0) fail("listing failed with {}", common::errno_name(r.error));
    std::sort(r.entries.begin(), r.entries.end());
    const auto has = [&](const std::string& name) {
        return std::binary_search(r.entries.begin(), r.entries.end(), name);
    };
    if (l.equals) {
        std::vector<std::string> want;
        for (const auto& t : *l.equals) want.push_back(t.expand(values));
        std::sort(want.begin(), want.end());
        if (want != r.entries) {
            std::vector<std::string> missing;
            std::vector<std::string> extra;
            std::set_difference(want.begin(), want.end(), r.entries.begin(), r.entries.end(),
                                std::back_inserter(missing));
            std::set_difference(r.entries.begin(), r.entries.end(), want.begin(), want.end(),
                                std::back_inserter(extra));
            fail("entries differ: missing [{}], unexpected [{}]", fmt::join(missing, ", "), fmt::join(extra, ", "));
        }
    }
    for (const auto& t : l.includes) {
        if (!has(t.expand(values))) fail("no entry {} (entries: {})", t.expand(values), fmt::join(r.entries, ", "));
    }
    for (const auto& t : l.excludes) {
        if (has(t.expand(values))) fail("entry {} should not be there", t.expand(values));
    }
}

void scenario_executor::runner::operator()(const watch_step& w) {
    const auto file = path(w.path);
    auto watched = std::make_unique<watched_file>(file);
    if (watched->open_error() != 0) fail("open failed with {}", common::errno_name(watched->open_error()));
    if (watched->first_read().error != 0)
        fail("the first read failed with {}", common::errno_name(watched->first_read().error));
    remember(file, watched->first_read());
    const auto name = w.name.expand(values);
    watch_paths[name] = file;
    watches[name] = std::move(watched);
}

void scenario_executor::runner::remember(const std::string& file, const read_result& r) {
    // A failed read (a refused user's, say) has no text to compare later reads with.
    if (r.error == 0) previous[file] = r;
}

void scenario_executor::runner::operator()(const poll_step& p) {
    const auto name = p.name.expand(values);
    const auto it = watches.find(name);
    if (it == watches.end()) fail("nothing is watched as '{}' (a watch step names it)", name);
    const bool woke = it->second->woke_within(p.within);
    if (p.wake && !woke) fail("no POLLPRI|POLLERR within {}", format_duration(p.within));
    if (!p.wake && woke) fail("POLLPRI|POLLERR came, and none should have");
}

void scenario_executor::runner::operator()(const rearm_step& r) {
    const auto name = r.name.expand(values);
    const auto it = watches.find(name);
    if (it == watches.end()) fail("nothing is watched as '{}' (a watch step names it)", name);
    const auto& file = watch_paths.at(name);
    const auto before = previous.contains(file) ? std::optional(previous.at(file)) : std::nullopt;
    const auto now = it->second->rearm();
    remember(file, now);
    if (r.expect.empty()) {
        if (now.error != 0) fail("the read failed with {}", common::errno_name(now.error));
        return;
    }
    if (const auto problem = check_value(r.expect, values, now, before)) fail(*problem);
}

void scenario_executor::runner::operator()(const pread_step& r) {
    const auto name = r.name.expand(values);
    const auto it = watches.find(name);
    if (it == watches.end()) fail("nothing is watched as '{}' (a watch step names it)", name);
    const auto now = it->second->read_part(r.part);
    if (r.expect.empty() && now.error != 0) fail("the read failed with {}", common::errno_name(now.error));
    if (const auto problem = r.expect.empty() ? std::nullopt : check_value(r.expect, values, now, std::nullopt)) {
        fail(*problem);
    }
}

void scenario_executor::runner::operator()(const for_each_step& f) { run_loops(f, 0); }

void scenario_executor::runner::run_loops(const for_each_step& f, std::size_t depth) {
    if (depth == f.loops.size()) {
        const auto* self = current;
        run_list(*f.body);
        current = self;
        return;
    }
    const auto& l = f.loops[depth];
    const auto each = loop_values(l);
    // A loop over nothing would check nothing and pass.
    if (each.empty()) fail("the set '{}' is empty on this target: nothing to check", l.keyword);
    for (const auto& v : each) {
        values[l.variable] = v;
        run_loops(f, depth + 1);
    }
    values.erase(l.variable);
}

std::vector<std::string> scenario_executor::runner::loop_values(const loop& l) const {
    if (l.keyword.empty()) return l.values;
    std::vector<std::string> out;
    if (l.keyword == "devices" || l.keyword == "cores") {
        const auto n = l.keyword == "devices" ? target.devices : target.cores_per_device;
        for (std::uint32_t i = 0; i < n; ++i) out.push_back(std::to_string(i));
        return out;
    }
    const auto* type = target.instance != nullptr  ? target.instance
                       : target.candidates.empty() ? nullptr
                                                   : target.candidates.front();
    if (type == nullptr) fail("the target's instance type is not known, so its {} are not either", l.keyword);
    const sysfs::layout layout(*type, *target.release, 0);
    const auto group = l.keyword == "status_counters"         ? model::counter_group::status
                       : l.keyword == "other_info_counters"   ? model::counter_group::other_info
                       : l.keyword == "device_mem_categories" ? model::counter_group::device_category
                                                              : model::counter_group::host_category;
    for (const auto& c : model::counters_in(group)) {
        if (const auto name = layout.counter_directory(c.kind)) out.emplace_back(*name);
    }
    return out;
}

} // namespace neuron::conformance
