#pragma once

#include "neuron/conformance/duration.h"
#include "neuron/conformance/text_template.h"
#include "neuron/conformance/tree_io.h"
#include "neuron/conformance/value_check.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace neuron::conformance {

// Where a step stands in its scenario file: "scenarios/x.yaml:12:5".
struct source_location {
    std::string file;
    int line = 0;
    int column = 0;
    std::string str() const;
};

struct step;
using step_list = std::vector<step>;

// ---- the tree (paths are relative to the directory holding neuron0, ...)

struct read_step {
    text_template path;
    std::optional<file_part> part; // one pread(2) of part of the file (none: all of it)
    value_check expect;
    std::optional<nanoseconds> within;   // re-read until the checks hold, for this long
    std::optional<std::uint32_t> as_uid; // read as this user (65534: nobody)
};

struct write_step {
    text_template path;
    text_template value;
    int expect_errno = 0;                 // 0: the write succeeds
    std::optional<std::uint64_t> written; // what write(2) returns (kernfs cuts a write to one page)
    std::optional<std::uint32_t> as_uid;
};

struct stat_step {
    text_template path;
    std::optional<std::uint32_t> mode; // permission bits, e.g. 0644
    std::optional<std::uint64_t> size;
    std::optional<std::string> type;   // file, directory or link
    std::optional<text_template> link; // a link's target
    std::optional<int> error;
};

struct list_step {
    text_template path;
    std::optional<std::vector<text_template>> equals; // exactly these entries, in any order
    std::vector<text_template> includes;
    std::vector<text_template> excludes;
    std::optional<int> error;
};

// Opens a file and reads it at offset 0, as a poller does before waiting.
struct watch_step {
    text_template path;
    text_template name;
};

struct poll_step {
    text_template name;
    bool wake = true;   // POLLPRI|POLLERR expected, or expected not to come
    nanoseconds within; // how long to wait
};

// lseek(fd, 0) and a read: re-arms a watched file.
struct rearm_step {
    text_template name;
    value_check expect;
};

// One pread(2) on a watched file, at an offset: continues the snapshot its
// last read at offset 0 took, and re-arms only at offset 0.
struct pread_step {
    text_template name;
    file_part part;
    value_check expect;
};

// A relation between files. The numbers of `sum` (each "%llu\n") add up to
// the sum of `equals` (or at most / at least that of `at_most` / `at_least`);
// the files of `same_text` read the same bytes; with `symmetric`, each
// device's file of that name lists device J exactly when device J's lists it.
struct relation_step {
    std::vector<text_template> sum;
    enum class compare { equals, at_most, at_least } how = compare::equals;
    std::vector<text_template> other;
    std::vector<text_template> same_text;
    std::optional<text_template> symmetric;
};

struct loop {
    std::string variable;
    std::string keyword;             // devices, cores, status_counters, ... (empty: `values`)
    std::vector<std::string> values; // an explicit list
};

struct for_each_step {
    std::vector<loop> loops; // nested in order: the last varies fastest
    std::shared_ptr<step_list> body;
};

// ---- the emulator (through its control channel)

struct inject_ecc_step {
    text_template device;
    std::string kind;
    text_template count{"1"};
    std::optional<text_template> channel;
};

struct inject_fault_step {
    text_template device;
    std::string kind;
    std::optional<std::uint32_t> core; // none: every core of the device
    std::string engine;                // empty: no engine aimed at
    std::optional<std::uint32_t> queue;
};

struct reset_step {
    text_template device;
    std::optional<std::string> expect; // queued, refused_device_open, already_pending
};

// The firmware's HBM repair state (Trainium2): none, pending or failed.
struct set_repair_state_step {
    text_template device;
    std::string state;
};

struct fail_resets_step {
    text_template device;
    std::uint32_t count = 1;
};

struct emit_debug_step {
    text_template core; // global logical core
    std::uint32_t count = 1;
    text_template prefix{"debug"};
    text_template dtype{"float32"};
    std::vector<std::uint64_t> shape{1};
    std::uint32_t pipe = 0;
    std::optional<std::uint64_t> accepted, dropped, discarded;
};

struct advance_step {
    nanoseconds by;
};

struct stream_status_step {
    text_template core; // global logical core
    std::optional<bool> connected;
    std::optional<std::uint64_t> accepted, fill, dropped, discarded;
};

// ---- runtime processes (build/bin/nrt-session, linked to the shim)

struct nrt_init_step {
    std::string process;
    std::map<std::string, std::string> env;
    std::string expect = "NRT_SUCCESS";
    std::optional<std::uint32_t> visible; // logical cores nrt_init gave
};

struct nrt_load_step {
    std::string process;
    std::string model; // a name from the scenario's models: or a file beside the scenario
    std::string as;    // the name later steps use
    int core = -1;     // the logical core (-1: the runtime chooses)
    std::string expect = "NRT_SUCCESS";
};

struct nrt_execute_step {
    std::string process;
    std::string model;
    std::uint32_t count = 1;
    std::vector<std::string> expect; // one status per execution (repeating the last)
    bool wait = true;                // false: return once the request reached the emulator
};

// The reply of an execution started with wait: false.
struct nrt_wait_step {
    std::string process;
    std::string expect = "NRT_SUCCESS";
};

struct nrt_unload_step {
    std::string process;
    std::string model;
    std::string expect = "NRT_SUCCESS";
};

struct nrt_close_step {
    std::string process;
};

// nrt_init, nrt_load and `executions` runs in one step.
struct run_model_step {
    std::string process;
    std::string model;
    std::map<std::string, std::string> env;
    int core = -1;
    std::uint32_t executions = 1;
    std::vector<std::string> expect{"NRT_SUCCESS"};
};

enum class ending { quit, exit, abort, kill };

// quit: nrt_close and exit 0; exit: exit(0) without nrt_close; abort: abort();
// kill: a signal from outside. The process is reaped either way.
struct end_process_step {
    std::string process;
    ending how = ending::quit;
    int signal = 9;
};

struct expect_exit_step {
    std::string process;
    std::optional<int> status;
    std::optional<int> signal;
};

// What the runtime in a process has logged to stderr so far: some line
// matches `line` (the whole line), and no line matches `no_line`.
struct runtime_log_step {
    std::string process;
    std::optional<text_template> line;
    std::optional<text_template> no_line;
};

struct debug_connect_step {
    std::string process;
    int core = 0; // the process's logical core
    std::string expect = "NRT_SUCCESS";
};

// With count: waits for that many events (fails if fewer come). Without: one
// read, whose status must be `expect` (NRT_QUEUE_EMPTY when none waits).
// What one debug event's payload must hold; each field as the event's line
// prints it (shape "2,3"; data its first 16 elements, "0,1,2").
struct debug_event_check {
    std::map<std::string, text_template> fields; // nc, pipe, prefix, dtype, shape, bytes, data
};

struct debug_read_step {
    std::string process;
    int core = 0;
    std::optional<std::uint64_t> count;
    std::string expect = "NRT_SUCCESS";
    std::vector<std::string> prefixes;     // with count: the events' prefixes, in order
    std::vector<debug_event_check> events; // with count: each event's fields, in order
};

// Reads until the queue is empty; the first element of event i must be i when
// in_order is asked for (what emit_debug's iota data holds).
struct debug_drain_step {
    std::string process;
    int core = 0;
    std::optional<std::uint64_t> count;
    std::optional<bool> in_order;
};

struct debug_close_step {
    std::string process;
    int core = 0;
};

using action = std::variant<read_step, write_step, stat_step, list_step, watch_step, poll_step, rearm_step, pread_step,
                            relation_step, for_each_step, inject_ecc_step, inject_fault_step, set_repair_state_step,
                            reset_step, fail_resets_step, emit_debug_step, advance_step, stream_status_step,
                            nrt_init_step, nrt_load_step, nrt_execute_step, nrt_wait_step, nrt_unload_step,
                            nrt_close_step, run_model_step, end_process_step, expect_exit_step, runtime_log_step,
                            debug_connect_step, debug_read_step, debug_drain_step, debug_close_step>;

struct step {
    source_location where;
    std::string verb;    // the step's key, as written
    std::string summary; // "read neuron{device}/reset", for reports
    action what;
};

} // namespace neuron::conformance
