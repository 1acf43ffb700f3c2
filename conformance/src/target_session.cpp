#include "neuron/conformance/target_session.h"

#include "neuron/common/child_process.h"
#include "neuron/common/posix_names.h"
#include "neuron/conformance/tree_io.h"
#include "neuron/sysfs/char_major.h"
#include "neuron/sysfs/private_host_view.h"
#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <sys/wait.h>

namespace neuron::conformance {
namespace {

using common::child_process;
using common::current_environment;
using common::milliseconds;

constexpr milliseconds start_timeout{20'000};
constexpr milliseconds stop_timeout{10'000};

// `neuron-emu serve` for the scenario's target, its tree and socket under `directory`.
std::vector<std::string> serve_arguments(const target_description& target, const scenario& s,
                                         const std::string& directory, const tool_paths& tools) {
    return {tools.emulator,
            "serve",
            "--instance",
            std::string(target.instance->name),
            "--driver-version",
            std::string(target.release->tag),
            "--time",
            s.setup.time == time_mode::stepped ? "stepped" : "realtime",
            "--rtf",
            fmt::format("{}", s.setup.rtf),
            "--seed",
            std::to_string(s.setup.seed),
            "--mount",
            directory + "/tree",
            "--whole-tree",
            "--control",
            directory + "/control.sock",
            "--allow-other"};
}

class model_session : public target_session {
public:
    model_session(const target_description& target, const scenario& s, const std::string& directory,
                  const tool_paths& tools)
            : m_root(fmt::format("{}/tree/{}", directory, sysfs::devices_path)),
              m_control_path(directory + "/control.sock") {
        m_serve.emplace(serve_arguments(target, s, directory, tools), current_environment(),
                        directory + "/emulator.stderr");
        for (;;) {
            const auto line = m_serve->read_line(start_timeout);
            if (!line) {
                const auto status = m_serve->wait(milliseconds(1000));
                throw std::runtime_error(
                    fmt::format("the emulator did not come up ({}): {}\n{}",
                                status ? common::describe_wait_status(*status) : "no ready line in 20s",
                                m_serve->command(), m_serve->err()));
            }
            if (line->starts_with("neuron-emu: control socket")) break;
        }
        try {
            m_client = std::make_unique<protocol::simple_client>(m_control_path, protocol::peer_role::control,
                                                                 "neuron-conformance");
        } catch (const std::exception& e) {
            throw std::runtime_error(fmt::format("cannot reach the emulator's control socket: {}", e.what()));
        }
    }

    ~model_session() override { (void)finish(); }

    const std::string& root() const override { return m_root; }
    protocol::simple_client* control() override { return m_client.get(); }
    std::string control_path() const override { return m_control_path; }

    std::optional<std::string> finish() override {
        if (!m_serve || !m_serve->running()) return m_problem;
        m_client.reset();
        m_serve->signal(SIGTERM);
        auto status = m_serve->wait(stop_timeout);
        if (!status) {
            m_serve->signal(SIGKILL);
            status = m_serve->wait(stop_timeout);
            m_problem = fmt::format("the emulator did not stop within {} s of SIGTERM", stop_timeout.count() / 1000);
        } else if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
            m_problem =
                fmt::format("the emulator ended with {}:\n{}", common::describe_wait_status(*status), m_serve->err());
        }
        return m_problem;
    }

private:
    std::string m_root;
    std::string m_control_path;
    std::optional<child_process> m_serve;
    std::unique_ptr<protocol::simple_client> m_client;
    std::optional<std::string> m_problem;
};

// A tree that outlives the scenario: what its setup switched is put back.
class sysfs_session : public target_session {
public:
    explicit sysfs_session(const target_description& target) : m_root(target.root), m_control_path(target.control) {
        const auto notify = read_file(notify_path());
        if (notify.error == 0) m_notify = notify.text;
        if (!m_control_path.empty()) {
            try {
                m_client = std::make_unique<protocol::simple_client>(m_control_path, protocol::peer_role::control,
                                                                     "neuron-conformance");
            } catch (const std::exception& e) {
                throw std::runtime_error(fmt::format("cannot reach the emulator's control socket: {}", e.what()));
            }
        }
    }
    ~sysfs_session() override { (void)finish(); }

    const std::string& root() const override { return m_root; }
    protocol::simple_client* control() override { return m_client.get(); }
    std::string control_path() const override { return m_control_path; }

    std::optional<std::string> finish() override {
        if (m_finished) return std::nullopt;
        m_finished = true;
        if (!m_notify) return std::nullopt;
        const auto now = read_file(notify_path());
        if (now.error == 0 && now.text == *m_notify) return std::nullopt;
        if (const int error = write_file(notify_path(), *m_notify).error; error != 0) {
            return fmt::format("could not put notify_delay back to {}: {}", *m_notify, std::strerror(error));
        }
        return std::nullopt;
    }

private:
    std::string notify_path() const { return m_root + "/neuron0/info/notify_delay"; }

    std::string m_root;
    std::string m_control_path;
    std::unique_ptr<protocol::simple_client> m_client;
    std::optional<std::string> m_notify;
    bool m_finished = false;
};

} // namespace

tool_paths tool_paths::beside(const std::string& runner_executable) {
    const auto bin = std::filesystem::path(runner_executable).parent_path();
    return {(bin / "neuron-emu").string(), (bin / "nrt-session").string(), (bin.parent_path() / "lib").string()};
}

std::unique_ptr<target_session> open_model_session(const target_description& target, const scenario& s,
                                                   const std::string& directory, const tool_paths& tools) {
    return std::make_unique<model_session>(target, s, directory, tools);
}

std::optional<std::string> serve_refusal(const target_description& target, const scenario& s,
                                         const std::string& directory, const tool_paths& tools) {
    child_process serve(serve_arguments(target, s, directory, tools), current_environment(),
                        directory + "/emulator.stderr");
    while (serve.read_line(start_timeout)) {
        // A ready line means it serves what it should have refused.
        return fmt::format("the emulator served {} on driver {}, which the driver refuses", target.instance->name,
                           target.release->tag);
    }
    const auto status = serve.wait(stop_timeout);
    if (!status) return std::string("the emulator neither served nor exited");
    if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 2) {
        return fmt::format("the emulator ended with {}, not the usage error (exit 2) of a refused setup:\n{}",
                           common::describe_wait_status(*status), serve.err());
    }
    // It must say why: name the driver release it refused.
    if (serve.err().find(std::string(target.release->tag)) == std::string::npos) {
        return fmt::format("the emulator's refusal does not name driver {}: {}", target.release->tag, serve.err());
    }
    return std::nullopt;
}

std::shared_ptr<void> enter_host_view(const target_description& target, const std::string& directory) {
    sysfs::enter_private_mount_namespace();
    auto scratch = std::make_shared<sysfs::scratch_directory>();
    const sysfs::layout layout(*target.instance, *target.release,
                               sysfs::dynamic_char_major(sysfs::read_proc_devices()));
    sysfs::install_private_host_view(directory + "/tree", *scratch, layout);
    return scratch;
}

std::unique_ptr<target_session> open_sysfs_session(const target_description& target) {
    return std::make_unique<sysfs_session>(target);
}

} // namespace neuron::conformance
