#include "neuron/conformance/runtime_process.h"

#include "neuron/common/blocked_call.h"
#include "neuron/common/posix_names.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace neuron::conformance {
namespace {

constexpr milliseconds answer_timeout{60'000};

std::map<std::string, std::string> session_environment(const tool_paths& tools, const std::string& control_path,
                                                       const std::map<std::string, std::string>& extra) {
    auto env = current_environment();
    std::erase_if(env, [](const auto& entry) {
        return entry.first.starts_with("NEURON_RT_") || entry.first == "NEURON_LOGICAL_NC_CONFIG" ||
               entry.first == "NEURON_EMU_CONTROL";
    });
    const auto library_path = env.find("LD_LIBRARY_PATH");
    env["LD_LIBRARY_PATH"] = library_path == env.end() || library_path->second.empty()
                                 ? tools.library_dir
                                 : tools.library_dir + ":" + library_path->second;
    env["NEURON_EMU_CONTROL"] = control_path;
    for (const auto& [k, v] : extra) env[k] = v;
    return env;
}

} // namespace

std::string first_word(const std::string& line) { return line.substr(0, line.find(' ')); }

std::string answer_field(const std::string& line, const std::string& key) {
    const auto at = line.find(" " + key + "=");
    if (at == std::string::npos) return {};
    const auto start = at + key.size() + 2;
    return line.substr(start, line.find(' ', start) - start);
}

runtime_process::runtime_process(const std::string& name, const tool_paths& tools, const std::string& control_path,
                                 const std::map<std::string, std::string>& env, const std::string& directory)
        : m_name(name), m_process({tools.session}, session_environment(tools, control_path, env),
                                  directory + "/" + name + ".stderr") {}

void runtime_process::send(const std::string& command) { m_process.send_line(command); }

std::string runtime_process::answer(const std::string& verb) {
    for (;;) {
        const auto line = m_process.read_line(answer_timeout);
        if (!line) {
            const auto status = m_process.wait(milliseconds(100));
            throw std::runtime_error(fmt::format(
                "process {} gave no answer to '{}' ({}); its stderr:\n{}", m_name, verb,
                status ? common::describe_wait_status(*status) : "still running after 60 s", m_process.err()));
        }
        if (first_word(*line) == verb) return *line;
        m_lines.push_back(*line);
    }
}

std::string runtime_process::call(const std::string& command) {
    send(command);
    return answer(first_word(command));
}

bool runtime_process::wait_until_waiting_for_emulator(milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::microseconds(50);
    while (std::chrono::steady_clock::now() < deadline) {
        if (common::main_thread_call(m_process.pid()) == common::blocked_call::waiting_for_an_answer) return true;
        // A short execution may be over already: its answer is then waiting.
        if (m_process.output_waiting()) return true;
        if (!m_process.running() || m_process.wait(milliseconds(0))) return false;
        // /proc has no event to wait for: look again shortly.
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(5000));
    }
    return false;
}

} // namespace neuron::conformance
