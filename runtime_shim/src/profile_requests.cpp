#include "profile_requests.h"

#include "api.h"
#include "profile_files.h"
#include "runtime.h"

#include <algorithm>
#include <unistd.h>

namespace neuron::shim {
namespace {

constexpr std::size_t unwritten_kept = 1024; // the newest: a server may save a profile per request

} // namespace

std::string vnc_text(std::int64_t vnc) { return "NeuronCore " + std::to_string(vnc); }

namespace {

// NRT_SUCCESS for one of this process's cores of the current nrt_init.
NRT_STATUS check_vnc(const char* fn, std::int64_t vnc) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    if (vnc < 0 || vnc >= runtime::get().session().count) {
        return invalid(fn, vnc_text(vnc) + " is not one of this process's");
    }
    return NRT_SUCCESS;
}

} // namespace

std::optional<activity> activity_named(std::string_view name) {
    for (std::size_t i = 0; i < activity_names.size(); ++i) {
        if (name == activity_names[i]) return static_cast<activity>(i);
    }
    return std::nullopt;
}

profile_requests& profile_requests::get() {
    static profile_requests requests;
    return requests;
}

void profile_requests::not_written(const char* fn, std::string path, std::optional<std::uint32_t> vnc) {
    log(log_level::warning, fn, "neuron-emu does not write this file: nothing written to " + path);
    if (m_unwritten.size() == unwritten_kept) m_unwritten.erase(m_unwritten.begin());
    m_unwritten.push_back({fn, std::move(path), vnc});
}

// ---- per-model profiles

NRT_STATUS profile_requests::start_model_profile(const char* fn, model_profile profile) {
    std::lock_guard lock(m_mutex);
    if (m_model_profiles.contains(profile.filename)) {
        return invalid(fn, "a profile to '" + profile.filename + "' is already running");
    }
    for (const auto& [file, running] : m_model_profiles) {
        if (running.model_id == profile.model_id) {
            return invalid(fn, "model '" + profile.model_name + "' is already profiled to '" + file + "'");
        }
    }
    auto filename = profile.filename;
    m_model_profiles.emplace(std::move(filename), std::move(profile));
    return NRT_SUCCESS;
}

NRT_STATUS profile_requests::stop_model_profile(const char* fn, const std::string& filename) {
    model_profile stopped;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_model_profiles.find(filename);
        if (it == m_model_profiles.end()) return invalid(fn, "no profile was started to '" + filename + "'");
        stopped = std::move(it->second);
        m_model_profiles.erase(it);
    }
    if (stopped.last_profile == 0) {
        log(log_level::warning, fn,
            "model '" + stopped.model_name + "' did not run since nrt_profile_start: nothing written to " + filename);
        return NRT_SUCCESS;
    }
    const auto status = save(fn, filename, {stopped.last_profile});
    std::lock_guard lock(m_mutex);
    release(stopped.last_profile);
    return status;
}

// ---- continuous profiling

// ---- nrt_trace_start / nrt_trace_stop

NRT_STATUS profile_requests::start_trace(const char* fn, bool trace_mem) {
    std::lock_guard lock(m_mutex);
    if (m_trace_mem) return invalid(fn, "tracing is already on (nrt_trace_stop ends it)");
    m_trace_mem = trace_mem;
    return NRT_SUCCESS;
}

NRT_STATUS profile_requests::stop_trace(const char* fn, const std::string& filename) {
    std::lock_guard lock(m_mutex);
    if (!m_trace_mem) return invalid(fn, "tracing is not on (nrt_trace_start)");
    m_trace_mem.reset();
    not_written(fn, filename, std::nullopt);
    return NRT_SUCCESS;
}

std::optional<bool> profile_requests::trace() const {
    std::lock_guard lock(m_mutex);
    return m_trace_mem;
}

NRT_STATUS profile_requests::start_continuous(const char* fn, const std::string& output_dir) {
    std::lock_guard lock(m_mutex);
    if (m_continuous_dir) return invalid(fn, "continuous profiling is already running");
    if (m_inspect && m_inspect->settings.captures_device_profiles()) {
        return invalid(fn, "inspect captures device profiles: continuous profiling cannot start");
    }
    m_continuous_dir = output_dir;
    return NRT_SUCCESS;
}

// The file is <output_dir>/profile_pid_<pid>_vnc_<vnc>_<n>.ntff, n counting
// this process's saves: names that do not collide.
NRT_STATUS profile_requests::save_continuous(const char* fn, std::uint32_t vnc, const std::string& output_dir) {
    std::uint32_t last = 0;
    std::string path;
    {
        std::lock_guard lock(m_mutex);
        if (!m_continuous_dir) return invalid(fn, "continuous profiling is not running (nrt_profile_continuous_start)");
        if (const auto status = check_vnc(fn, vnc); status != NRT_SUCCESS) return status;
        const auto it = m_continuous_last.find(vnc);
        if (it == m_continuous_last.end()) {
            log(log_level::warning, fn, vnc_text(vnc) + " ran no model since profiling started: nothing saved");
            return NRT_SUCCESS;
        }
        last = it->second;
        hold(last); // kept while it is written, whatever runs meanwhile
        path = output_dir + "/profile_pid_" + std::to_string(::getpid()) + "_vnc_" + std::to_string(vnc) + "_" +
               std::to_string(++m_continuous_saves) + ".ntff";
    }
    auto status = profile_files::make_directories(fn, output_dir);
    if (status == NRT_SUCCESS) status = save(fn, path, {last});
    {
        std::lock_guard lock(m_mutex);
        release(last);
    }
    forget_unneeded();
    return status;
}

NRT_STATUS profile_requests::stop_continuous(const char* fn) {
    {
        std::lock_guard lock(m_mutex);
        if (!m_continuous_dir) return invalid(fn, "continuous profiling is not running");
        m_continuous_dir.reset();
        for (const auto& [vnc, id] : m_continuous_last) release(id);
        m_continuous_last.clear();
    }
    forget_unneeded();
    return NRT_SUCCESS;
}

// ---- profile sessions

NRT_STATUS profile_requests::start_session(const char* fn, std::int32_t vnc) {
    if (const auto status = check_vnc(fn, vnc); status != NRT_SUCCESS) return status;
    std::lock_guard lock(m_mutex);
    for (const auto& [id, session] : m_sessions) {
        if (session.vnc == vnc && session.running) {
            return invalid(fn, "a profile session already runs on " + vnc_text(vnc));
        }
    }
    const auto id = ++m_last_session_id;
    m_sessions[id] = {id, vnc, true, {}};
    return NRT_SUCCESS;
}

NRT_STATUS profile_requests::stop_session(const char* fn, std::int32_t vnc, std::uint64_t& id) {
    std::lock_guard lock(m_mutex);
    for (auto& [session_id, session] : m_sessions) {
        if (session.vnc != vnc || !session.running) continue;
        session.running = false;
        id = session_id;
        return NRT_SUCCESS;
    }
    return invalid(fn, "no profile session runs on " + vnc_text(vnc));
}

NRT_STATUS profile_requests::serialize_session(const char* fn, std::uint64_t id, const std::string& filename) {
    std::vector<std::uint32_t> profiles;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_sessions.find(id);
        if (it == m_sessions.end()) return invalid(fn, "no profile session " + std::to_string(id));
        if (it->second.running) return invalid(fn, "profile session " + std::to_string(id) + " is still running");
        profiles = it->second.profiles;
        for (const auto p : profiles) hold(p); // kept while written, even if the session is dropped meanwhile
    }
    if (profiles.empty()) {
        log(log_level::warning, fn,
            "profile session " + std::to_string(id) + " saw no execution: nothing written to " + filename);
        return NRT_SUCCESS;
    }
    const auto status = save(fn, filename, profiles);
    {
        std::lock_guard lock(m_mutex);
        release(profiles);
    }
    forget_unneeded();
    return status;
}

NRT_STATUS profile_requests::drop_session(const char* fn, std::uint64_t id) {
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_sessions.find(id);
        if (it == m_sessions.end()) return invalid(fn, "no profile session " + std::to_string(id));
        if (it->second.running) return invalid(fn, "profile session " + std::to_string(id) + " is still running");
        release(it->second.profiles);
        m_sessions.erase(it);
    }
    forget_unneeded();
    return NRT_SUCCESS;
}

NRT_STATUS profile_requests::drop_sessions(const char* fn, std::int32_t vnc) {
    if (vnc < 0) return invalid(fn, vnc_text(vnc) + " is not one of this process's");
    {
        std::lock_guard lock(m_mutex);
        std::erase_if(m_sessions, [&](const auto& entry) {
            const bool dropped = entry.second.vnc == vnc && !entry.second.running;
            if (dropped) release(entry.second.profiles);
            return dropped;
        });
    }
    forget_unneeded();
    return NRT_SUCCESS;
}

// ---- inspect

NRT_STATUS profile_requests::begin_inspect(const char* fn, const inspect_request& request) {
    bool started_at_init = false;
    {
        std::lock_guard lock(m_mutex);
        started_at_init = m_inspect && m_inspect_at_init;
    }
    // A call takes over from the capture NEURON_RT_INSPECT_ENABLE started at
    // nrt_init, which ends as nrt_inspect_stop would end it.
    if (started_at_init) (void)stop_inspect(fn);
    std::lock_guard lock(m_mutex);
    if (m_inspect) return invalid(fn, "inspect is already running (nrt_inspect_stop ends it)");
    const auto& settings = request.settings;
    if (settings.captures_device_profiles() && m_continuous_dir) {
        return invalid(fn, "continuous profiling is running: inspect cannot capture device profiles");
    }
    if (settings.captures_system_trace()) {
        if (const auto other = sys_trace::start(sys_trace::capture_owner::inspect, settings.capture)) {
            return invalid(fn, std::string("a system trace capture is already running (") +
                                   sys_trace::starter_of(*other) + ")");
        }
    } else {
        log(log_level::warning, fn, "inspect captures no system trace: enable_inspect or system_profile is off");
    }
    m_inspect = request;
    return NRT_SUCCESS;
}

NRT_STATUS profile_requests::stop_inspect(const char* fn) {
    inspect_profiles captured;
    std::string output_dir;
    {
        std::lock_guard lock(m_mutex);
        if (!m_inspect) return invalid(fn, "inspect is not running (nrt_inspect_begin starts it)");
        const auto& settings = m_inspect->settings;
        if (settings.captures_system_trace()) {
            sys_trace::stop(sys_trace::capture_owner::inspect);
            not_written(fn, settings.output_dir + " (the system trace, ntrace.pb)", std::nullopt);
        }
        output_dir = settings.output_dir;
        captured = std::move(m_inspect_profiles);
        captured.session_id = settings.session_id;
        m_inspect_at_init = false;
        m_inspect_profiles = {};
        m_inspect.reset();
    }
    const auto status = save_inspect_profiles(fn, output_dir, captured);
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [key, id] : captured.first) release(id);
        for (const auto& [vnc, ids] : captured.session) release(ids);
        for (const auto& f : captured.failed) release(f.profile);
    }
    forget_unneeded();
    return status;
}

void profile_requests::begin_inspect_from_environment(const char* fn) {
    inspect_request request;
    if (inspect_from_environment(fn, request) != NRT_SUCCESS || !request.settings.enable_inspect) return;
    {
        std::lock_guard lock(m_mutex);
        if (m_inspect) return; // one already runs
    }
    if (begin_inspect(fn, request) != NRT_SUCCESS) return;
    std::lock_guard lock(m_mutex);
    m_inspect_at_init = true;
}

void profile_requests::stop_inspect_at_close(const char* fn) {
    {
        std::lock_guard lock(m_mutex);
        if (!m_inspect) return;
    }
    (void)stop_inspect(fn);
}

void profile_requests::runtime_closed() {
    std::lock_guard lock(m_mutex);
    for (auto& [file, p] : m_model_profiles) p.last_profile = 0;
    m_continuous_last.clear();
    for (auto& [id, s] : m_sessions) s.profiles.clear();
    m_inspect_profiles = {};
    m_holders.clear();
    m_unneeded.clear();
}

// ---- what the profiles work reads

std::map<std::string, model_profile> profile_requests::model_profiles() const {
    std::lock_guard lock(m_mutex);
    return m_model_profiles;
}

std::optional<std::string> profile_requests::continuous_output_dir() const {
    std::lock_guard lock(m_mutex);
    return m_continuous_dir;
}

std::vector<profile_session> profile_requests::sessions() const {
    std::lock_guard lock(m_mutex);
    std::vector<profile_session> all;
    for (const auto& [id, session] : m_sessions) all.push_back(session);
    return all;
}

std::optional<inspect_request> profile_requests::inspect() const {
    std::lock_guard lock(m_mutex);
    return m_inspect;
}

std::vector<unwritten_output> profile_requests::unwritten() const {
    std::lock_guard lock(m_mutex);
    return m_unwritten;
}

} // namespace neuron::shim
