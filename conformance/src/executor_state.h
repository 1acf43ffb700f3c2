#pragma once

// What a running scenario holds, shared by the executor's parts: the tree
// steps (scenario_executor.cpp), the emulator steps (emulator_steps.cpp) and
// the runtime steps (runtime_steps.cpp).

#include "tree_path.h"

#include "neuron/conformance/scenario_executor.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>
#include <string>

namespace neuron::conformance {

struct scenario_executor::runner {
    const scenario& s;
    const target_description& target;
    target_session& session;
    const tool_paths& tools;
    std::string directory;
    step_listener on_step;

    const step* current = nullptr;
    bindings values;
    std::map<std::string, read_result> previous;                  // by absolute path
    std::map<std::string, std::unique_ptr<watched_file>> watches; // by name
    std::map<std::string, std::string> watch_paths;               // by name
    std::map<std::string, std::unique_ptr<runtime_process>> processes;
    std::set<std::string> in_flight;                // processes with an execution started by wait: false
    std::map<std::string, std::string> model_paths; // a model's name in the scenario -> its file

    runner(const scenario& sc, const target_description& t, target_session& ts, const tool_paths& tp, std::string dir,
           step_listener listener)
            : s(sc), target(t), session(ts), tools(tp), directory(std::move(dir)), on_step(std::move(listener)) {}

    [[noreturn]] void fail(const std::string& why) const {
        throw step_failure(current->where, describe(*current), why);
    }
    template <typename... Args>
    [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
        fail(fmt::format(format, std::forward<Args>(args)...));
    }

    std::string describe(const step& st) const;
    // The parser refuses a path that leaves the tree; a for_each value put
    // into it is checked here.
    std::string path(const text_template& relative) const {
        const auto expanded = relative.expand(values);
        if (const auto why = tree_path_refusal(expanded)) fail(*why);
        // A host path: the model target's scenario sees its own (see host_view).
        if (is_host_path(expanded)) {
            if (!target.capabilities.contains(capability::host_paths))
                fail("this target has no host paths: {}", expanded);
            return expanded;
        }
        return session.root() + "/" + expanded;
    }
    std::uint32_t number(const text_template& t, std::string_view what) const;

    void run_list(const step_list& steps);
    void run(const step& st);
    void prepare();

    // Tree.
    void operator()(const read_step& r);
    void operator()(const write_step& w);
    void operator()(const stat_step& st);
    void operator()(const list_step& l);
    void operator()(const watch_step& w);
    void remember(const std::string& file, const read_result& r);
    void operator()(const poll_step& p);
    void operator()(const rearm_step& r);
    void operator()(const pread_step& r);
    void operator()(const runtime_log_step& l);
    void operator()(const relation_step& r);
    std::uint64_t number_in(const std::string& file) const;
    void operator()(const for_each_step& f);
    std::vector<std::string> loop_values(const loop& l) const;
    void run_loops(const for_each_step& f, std::size_t depth);

    // Emulator.
    protocol::simple_client& control();
    void operator()(const inject_ecc_step& e);
    void operator()(const inject_fault_step& f);
    void operator()(const set_repair_state_step& r);
    void operator()(const reset_step& r);
    void operator()(const fail_resets_step& f);
    void operator()(const emit_debug_step& e);
    void operator()(const advance_step& a);
    void operator()(const stream_status_step& st);
    void settle(); // lets the emulator release processes that ended

    // Runtime.
    runtime_process& process(const std::string& name);
    runtime_process& idle(const std::string& name); // a process without an execution in flight
    runtime_process& start(const std::string& name, const std::map<std::string, std::string>& env);
    std::string call(runtime_process& p, const std::string& command);
    void expect_status(const std::string& answer, const std::string& status, const std::string& expected) const;
    void load(runtime_process& p, const std::string& model, const std::string& as, int core, const std::string& expect);
    void operator()(const nrt_init_step& i);
    void operator()(const nrt_load_step& l);
    void operator()(const nrt_execute_step& e);
    void operator()(const nrt_wait_step& w);
    void operator()(const nrt_unload_step& u);
    void operator()(const nrt_close_step& c);
    void operator()(const run_model_step& r);
    void operator()(const end_process_step& e);
    void operator()(const expect_exit_step& e);
    void operator()(const debug_connect_step& c);
    void operator()(const debug_read_step& r);
    void operator()(const debug_drain_step& d);
    void operator()(const debug_close_step& c);
    void end_processes();
};

} // namespace neuron::conformance
