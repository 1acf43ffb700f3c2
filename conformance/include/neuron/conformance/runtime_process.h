#pragma once

#include "neuron/common/child_process.h"
#include "neuron/conformance/target_session.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neuron::conformance {

using common::child_process;
using common::current_environment;
using common::milliseconds;

// A libnrt program a scenario drives: build/bin/nrt-session, linked to the
// emulator's shim, taking one command per line and answering each with a
// line that starts with the command's verb (runtime_shim/tools/nrt_session.c).
class runtime_process {
public:
    // `env` is added to the runner's environment, after NEURON_RT_* and
    // NEURON_LOGICAL_NC_CONFIG are taken out of it and the shim's library
    // path and control socket are put in.
    runtime_process(const std::string& name, const tool_paths& tools, const std::string& control_path,
                    const std::map<std::string, std::string>& env, const std::string& directory);

    const std::string& name() const { return m_name; }
    child_process& process() { return m_process; }

    // Sends a command and returns its answer (lines before it, such as the
    // events of `wait`, are kept in lines()). Throws std::runtime_error when
    // the process ends or does not answer in time.
    std::string call(const std::string& command);
    void send(const std::string& command);
    std::string answer(const std::string& verb);
    const std::vector<std::string>& lines() const { return m_lines; }

    // Waits until the process is blocked in recvmsg(2) or poll(2) inside a call that
    // waits for the emulator: its request has then reached the emulator
    // (unix sockets deliver at send). False when that does not happen in time.
    bool wait_until_waiting_for_emulator(milliseconds timeout);

    // Reaps the process once it ended (after quit, exit, abort or a signal).
    std::optional<int> wait_for_end(milliseconds timeout) { return m_process.wait(timeout); }

private:
    std::string m_name;
    child_process m_process;
    std::vector<std::string> m_lines;
};

// The first word of a line and the rest: "exec add NRT_SUCCESS" -> "exec".
std::string first_word(const std::string& line);
// The value of key=value in an answer line ("" when absent).
std::string answer_field(const std::string& line, const std::string& key);

} // namespace neuron::conformance
