#include "executor_state.h"

#include "neuron/common/posix_names.h"
#include "regex_limits.h"

#include <csignal>
#include <filesystem>
#include <regex>
#include <sstream>
#include <sys/wait.h>

namespace neuron::conformance {
namespace {

constexpr milliseconds end_timeout{20'000};
constexpr milliseconds reach_timeout{20'000};

// "exec add NRT_SUCCESS" -> "NRT_SUCCESS": the status word after `skip` words.
std::string word(const std::string& line, std::size_t skip) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < skip; ++i) {
        start = line.find(' ', start);
        if (start == std::string::npos) return {};
        ++start;
    }
    return line.substr(start, line.find(' ', start) - start);
}

std::string model_name(const std::string& model) { return std::filesystem::path(model).stem().string(); }

// An expected status: an NRT_* name, `any`, or `any_error` (anything but NRT_SUCCESS).
bool status_matches(const std::string& got, const std::string& want) {
    if (want == "any") return true;
    if (want == "any_error") return got != "NRT_SUCCESS" && !got.empty();
    return got == want;
}

} // namespace

runtime_process& scenario_executor::runner::process(const std::string& name) {
    const auto it = processes.find(name);
    if (it == processes.end()) fail("no process '{}' (nrt_init or run_model starts one)", name);
    if (!it->second->process().running())
        fail("process '{}' has ended ({})", name, common::describe_wait_status(*it->second->process().status()));
    return *it->second;
}

runtime_process& scenario_executor::runner::idle(const std::string& name) {
    auto& p = process(name);
    // nrt-session runs one call at a time: a command sent now would wait behind the execution.
    if (in_flight.contains(name)) fail("process '{}' has an execution in flight: nrt_wait collects it first", name);
    return p;
}

runtime_process& scenario_executor::runner::start(const std::string& name,
                                                  const std::map<std::string, std::string>& env) {
    if (const auto it = processes.find(name); it != processes.end() && it->second->process().running()) {
        fail("process '{}' is already running", name);
    }
    if (session.control_path().empty()) fail("this target has no emulator to run libnrt against"); // skipped before
    auto p = std::make_unique<runtime_process>(name, tools, session.control_path(), env, directory);
    auto& ref = *p;
    processes[name] = std::move(p);
    return ref;
}

std::string scenario_executor::runner::call(runtime_process& p, const std::string& command) {
    try {
        return p.call(command);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

void scenario_executor::runner::expect_status(const std::string& answer, const std::string& status,
                                              const std::string& expected) const {
    if (!status_matches(status, expected)) fail("expected {}, got {} ({})", expected, status, answer);
}

void scenario_executor::runner::load(runtime_process& p, const std::string& model, const std::string& as, int core,
                                     const std::string& expect) {
    const auto inline_model = model_paths.find(model);
    const auto file = inline_model != model_paths.end()
                          ? inline_model->second
                          : (std::filesystem::path(s.file).parent_path() / model).string();
    const auto path = std::filesystem::absolute(file).string();
    // nrt-session reads a command's words split at spaces.
    if (path.find_first_of(" \t") != std::string::npos) fail("a model file's path may not hold spaces: {}", path);
    const auto answer = call(p, fmt::format("load {} {} {}", as, path, core));
    expect_status(answer, word(answer, 2), expect);
    if (expect != "NRT_SUCCESS") return;
    const auto alloc = call(p, "alloc " + as);
    expect_status(alloc, word(alloc, 2), "NRT_SUCCESS");
}

void scenario_executor::runner::operator()(const nrt_init_step& i) {
    // A running process calls nrt_init again (after its nrt_close, say); a new one starts with its environment.
    const auto it = processes.find(i.process);
    const bool running = it != processes.end() && it->second->process().running();
    if (running && !i.env.empty()) fail("process '{}' is running: it keeps the environment it started with", i.process);
    auto& p = running ? idle(i.process) : start(i.process, i.env);
    const auto answer = call(p, "init");
    expect_status(answer, word(answer, 1), i.expect);
    if (i.visible && answer_field(answer, "visible") != std::to_string(*i.visible)) {
        fail("expected {} visible logical cores, got {} ({})", *i.visible, answer_field(answer, "visible"), answer);
    }
}

void scenario_executor::runner::operator()(const nrt_load_step& l) {
    load(idle(l.process), l.model, l.as, l.core, l.expect);
}

void scenario_executor::runner::operator()(const nrt_execute_step& e) {
    auto& p = idle(e.process);
    if (!e.wait) {
        p.send("exec " + e.model);
        if (!p.wait_until_waiting_for_emulator(reach_timeout)) {
            fail("nrt_execute did not wait for the emulator (its request never reached it)");
        }
        in_flight.insert(e.process);
        return;
    }
    for (std::uint32_t k = 0; k < e.count; ++k) {
        const auto answer = call(p, "exec " + e.model);
        const auto& want = e.expect[std::min<std::size_t>(k, e.expect.size() - 1)];
        if (!status_matches(word(answer, 2), want))
            fail("execution {} of {}: expected {}, got {}", k + 1, e.count, want, word(answer, 2));
    }
}

void scenario_executor::runner::operator()(const nrt_wait_step& w) {
    auto& p = process(w.process);
    if (!in_flight.erase(w.process))
        fail("process '{}' has no execution in flight (nrt_execute with wait: false starts one)", w.process);
    std::string answer;
    try {
        answer = p.answer("exec");
    } catch (const std::exception& e) {
        fail(e.what());
    }
    expect_status(answer, word(answer, 2), w.expect);
}

void scenario_executor::runner::operator()(const nrt_unload_step& u) {
    const auto answer = call(idle(u.process), "unload " + u.model);
    expect_status(answer, word(answer, 2), u.expect);
}

void scenario_executor::runner::operator()(const nrt_close_step& c) { (void)call(idle(c.process), "close"); }

void scenario_executor::runner::operator()(const run_model_step& r) {
    auto& p = start(r.process, r.env);
    const auto init = call(p, "init");
    expect_status(init, word(init, 1), "NRT_SUCCESS");
    const auto name = model_name(r.model);
    load(p, r.model, name, r.core, "NRT_SUCCESS");
    for (std::uint32_t k = 0; k < r.executions; ++k) {
        const auto answer = call(p, "exec " + name);
        const auto& want = r.expect[std::min<std::size_t>(k, r.expect.size() - 1)];
        if (!status_matches(word(answer, 2), want)) {
            fail("execution {} of {}: expected {}, got {}", k + 1, r.executions, want, word(answer, 2));
        }
    }
}

void scenario_executor::runner::operator()(const end_process_step& e) {
    auto& p = process(e.process);
    in_flight.erase(e.process); // its answer, if any, is read past or lost with it
    try {
        switch (e.how) {
        case ending::quit: (void)p.call("quit"); break;
        case ending::exit: (void)p.call("exit"); break;
        case ending::abort: p.send("abort"); break;
        case ending::kill: p.process().signal(e.signal); break;
        }
    } catch (const std::exception& error) {
        fail(error.what());
    }
    if (!p.wait_for_end(end_timeout))
        fail("process '{}' did not end within {} s", e.process, end_timeout.count() / 1000);
    settle();
}

void scenario_executor::runner::operator()(const expect_exit_step& e) {
    const auto it = processes.find(e.process);
    if (it == processes.end()) fail("no process '{}'", e.process);
    const auto status = it->second->process().status();
    if (!status) fail("process '{}' is still running (quit, exit, abort or kill ends it)", e.process);
    if (e.status && !(WIFEXITED(*status) && WEXITSTATUS(*status) == *e.status)) {
        fail("expected exit {}, got {}", *e.status, common::describe_wait_status(*status));
    }
    if (e.signal && !(WIFSIGNALED(*status) && WTERMSIG(*status) == *e.signal)) {
        fail("expected signal {}, got {}", common::signal_name(*e.signal), common::describe_wait_status(*status));
    }
}

void scenario_executor::runner::operator()(const runtime_log_step& l) {
    const auto it = processes.find(l.process);
    if (it == processes.end()) fail("no process '{}' (nrt_init or run_model starts one)", l.process);
    // The process may have ended: what it logged stays.
    const auto log = it->second->process().err();
    const auto matching = [&](const text_template& pattern) -> std::optional<std::string> {
        const auto text = pattern.expand(values);
        if (const auto why = regex_refusal(text)) fail("{}", *why);
        std::regex re;
        try {
            re = std::regex(text);
        } catch (const std::regex_error& e) {
            fail("{} is not a valid regular expression: {}", quote_text(text), e.what());
        }
        std::istringstream in(log);
        for (std::string line; std::getline(in, line);) {
            if (std::regex_match(line, re)) return line;
        }
        return std::nullopt;
    };
    if (l.line && !matching(*l.line)) {
        fail("no line of process '{}''s log matches {} (it logged {})", l.process, quote_text(l.line->expand(values)),
             log.empty() ? std::string("nothing") : quote_text(log));
    }
    if (l.no_line) {
        if (const auto found = matching(*l.no_line)) {
            fail("process '{}' logged {}, which matches {}", l.process, quote_text(*found),
                 quote_text(l.no_line->expand(values)));
        }
    }
}

void scenario_executor::runner::operator()(const debug_connect_step& c) {
    const auto answer = call(idle(c.process), fmt::format("connect {}", c.core));
    expect_status(answer, word(answer, 2), c.expect);
}

void scenario_executor::runner::operator()(const debug_read_step& r) {
    auto& p = idle(r.process);
    if (r.count) {
        const auto before = p.lines().size();
        const auto answer = call(p, fmt::format("wait {} {}", r.core, *r.count));
        if (answer_field(answer, "got") != std::to_string(*r.count)) {
            fail("expected {} events, got {} within the wait ({})", *r.count, answer_field(answer, "got"), answer);
        }
        for (std::size_t i = 0; i < r.prefixes.size(); ++i) {
            const auto& line = p.lines().at(before + i); // "event C nc=.. pipe=.. prefix=P ..."
            if (answer_field(line, "prefix") != r.prefixes[i]) {
                fail("event {} of {}: expected prefix {}, got {}", i + 1, *r.count, r.prefixes[i], line);
            }
        }
        for (std::size_t i = 0; i < r.events.size(); ++i) {
            const auto& line = p.lines().at(before + i);
            for (const auto& [key, want] : r.events[i].fields) {
                const auto expected = want.expand(values);
                if (answer_field(line, key) != expected) {
                    fail("event {} of {}: expected {} {}, got {} ({})", i + 1, *r.count, key, expected,
                         answer_field(line, key), line);
                }
            }
        }
        return;
    }
    const auto answer = call(p, fmt::format("read {}", r.core));
    expect_status(answer, word(answer, 2), r.expect);
}

void scenario_executor::runner::operator()(const debug_drain_step& d) {
    const auto answer = call(idle(d.process), fmt::format("drain {}", d.core));
    if (answer_field(answer, "end") != "NRT_QUEUE_EMPTY")
        fail("the drain ended with {} ({})", answer_field(answer, "end"), answer);
    if (d.count && answer_field(answer, "count") != std::to_string(*d.count)) {
        fail("expected {} events, read {}", *d.count, answer_field(answer, "count"));
    }
    if (d.in_order && (answer_field(answer, "in_order") == "1") != *d.in_order) {
        fail("expected the events {}in order ({})", *d.in_order ? "" : "not ", answer);
    }
}

void scenario_executor::runner::operator()(const debug_close_step& c) {
    (void)call(idle(c.process), fmt::format("close_stream {}", c.core));
}

void scenario_executor::runner::end_processes() {
    for (auto& [name, p] : processes) {
        if (!p->process().running()) continue;
        p->process().signal(SIGKILL);
        (void)p->wait_for_end(end_timeout);
    }
}

} // namespace neuron::conformance
