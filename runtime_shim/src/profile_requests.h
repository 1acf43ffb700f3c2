#pragma once

// What the profile and inspect calls asked for (reference/nrt-api-surface.md
// §9), checked and kept in one place, and the profiles the emulator recorded
// for them (protocol execute.profile): executions ask for a profile when a
// request wants one (wants_profile), hand its id over when it is recorded
// (recorded), and the calls that save write the session files the emulator
// builds (docs/profile-session-format.md). What neuron-emu cannot write (the
// system trace's ntrace.pb, nrt_trace_stop's file) is logged as a WARN line
// and kept in unwritten().

#include "nrt/nrt_profile.h"

#include "sys_trace.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::shim {

enum class activity : std::uint8_t { system_profile, device_profile, host_memory, cpu_util };
inline constexpr std::array<const char*, 4> activity_names{"system_profile", "device_profile", "host_memory",
                                                           "cpu_util"};
using activity_set = std::bitset<activity_names.size()>;
std::optional<activity> activity_named(std::string_view name);
std::string vnc_text(std::int64_t vnc); // "NeuronCore 3", for messages

// An inspect configuration (nrt_inspect_config_t, or the environment's).
struct inspect_settings {
    int session_id = 1;
    std::string output_dir = "./output";
    activity_set activities = activity_set().set();
    sys_trace::capture_settings capture;
    bool enable_inspect = false;
    bool enable_inspect_on_fail = false;
    nrt_inspect_device_profile_mode_t device_profile_mode = NRT_INSPECT_DEVICE_PROFILE_MODE_MODEL;

    bool has(activity a) const { return activities.test(static_cast<std::size_t>(a)); }
    // Inspect captures the system trace for every execution.
    bool captures_system_trace() const { return enable_inspect && has(activity::system_profile); }
    bool captures_device_profiles() const {
        return (enable_inspect || enable_inspect_on_fail) && has(activity::device_profile);
    }
};

enum class inspect_source { environment, options };

struct inspect_request {
    inspect_source source = inspect_source::options;
    inspect_settings settings;
    bool precache = false;          // NEURON_RT_INSPECT_PRECACHE_ENABLE
    bool dge_notifications = false; // NEURON_RT_ENABLE_DGE_NOTIFICATIONS
};

// nrt_inspect_begin's configuration from the NEURON_RT_INSPECT_* variables;
// NRT_INVALID (logged, naming the variable) for a value it cannot use.
NRT_STATUS inspect_from_environment(const char* fn, inspect_request& request);

struct model_profile {
    std::uint32_t model_id = 0;
    int vnc = 0;
    std::string model_name;
    std::string filename;
    std::uint32_t last_profile = 0; // the last execution recorded since it started; 0: none
};

struct profile_session {
    std::uint64_t id = 0;
    std::int32_t vnc = 0;
    bool running = true;
    std::vector<std::uint32_t> profiles; // every execution on its core while it ran
};

// What inspect captured of device profiles until nrt_inspect_stop.
struct inspect_profiles {
    std::map<std::pair<std::uint32_t, int>, std::uint32_t> first; // (model, vnc): its first execution
    std::map<int, std::vector<std::uint32_t>> session;            // vnc: every execution (session mode)
    struct failed_execution {
        std::uint32_t model_id;
        int vnc;
        std::uint32_t profile;
    };
    std::vector<failed_execution> failed; // enable_inspect_on_fail
    int session_id = 1;                   // names the session-mode files
};

// A profile file or directory a call asked for and that was not written.
struct unwritten_output {
    std::string call; // the API function
    std::string path; // the file, or the directory for automatic names
    std::optional<std::uint32_t> vnc;
};

class profile_requests {
public:
    static profile_requests& get();

    NRT_STATUS start_model_profile(const char* fn, model_profile profile);
    NRT_STATUS stop_model_profile(const char* fn, const std::string& filename);

    NRT_STATUS start_continuous(const char* fn, const std::string& output_dir);
    NRT_STATUS save_continuous(const char* fn, std::uint32_t vnc, const std::string& output_dir);
    NRT_STATUS stop_continuous(const char* fn);

    NRT_STATUS start_session(const char* fn, std::int32_t vnc);
    NRT_STATUS stop_session(const char* fn, std::int32_t vnc, std::uint64_t& id);
    NRT_STATUS serialize_session(const char* fn, std::uint64_t id, const std::string& filename);
    NRT_STATUS drop_session(const char* fn, std::uint64_t id);
    NRT_STATUS drop_sessions(const char* fn, std::int32_t vnc);

    // nrt_trace_start/stop (nrt_experimental.h): tracing of every core,
    // memory allocations too when asked; the file format is undocumented.
    NRT_STATUS start_trace(const char* fn, bool trace_mem);
    NRT_STATUS stop_trace(const char* fn, const std::string& filename);

    // Inspect captures the system trace through sys_trace (owner: inspect).
    NRT_STATUS begin_inspect(const char* fn, const inspect_request& request);
    NRT_STATUS stop_inspect(const char* fn);
    // At nrt_init: inspect as the NEURON_RT_INSPECT_* variables say, if they enable it.
    void begin_inspect_from_environment(const char* fn);
    // At nrt_close: a capture still running stops and writes its files.
    void stop_inspect_at_close(const char* fn);
    // After nrt_close: the emulator forgot this process's profiles.
    void runtime_closed();

    // Whether the next execution of `model_id` on `vnc` is to be recorded.
    bool wants_profile(std::uint32_t model_id, int vnc) const;
    // The emulator recorded it as `profile_id` (its execution returned
    // `status`): each request that wants it keeps it; the emulator forgets
    // the ones nobody keeps.
    void recorded(std::uint32_t model_id, int vnc, std::uint32_t profile_id, std::uint32_t status);

    // What the calls asked for, for tests.
    std::map<std::string, model_profile> model_profiles() const; // by file name
    std::optional<std::string> continuous_output_dir() const;    // while continuous profiling runs
    std::vector<profile_session> sessions() const;
    std::optional<inspect_request> inspect() const;
    std::optional<bool> trace() const; // trace_mem, while tracing
    std::vector<unwritten_output> unwritten() const;

private:
    void not_written(const char* fn, std::string path, std::optional<std::uint32_t> vnc);
    // A profile id kept by one more (hold) or one fewer (release) request;
    // one nobody keeps waits in m_unneeded for forget_unneeded().
    void hold(std::uint32_t id);
    void release(std::uint32_t id);
    void release(const std::vector<std::uint32_t>& ids);
    // Tells the emulator to forget the profiles nobody keeps. Not under m_mutex.
    void forget_unneeded();
    // Writes the session file of `ids` to `path`; not under m_mutex.
    NRT_STATUS save(const char* fn, const std::string& path, const std::vector<std::uint32_t>& ids);
    NRT_STATUS save_inspect_profiles(const char* fn, const std::string& output_dir, const inspect_profiles& captured);

    mutable std::mutex m_mutex;
    std::map<std::string, model_profile> m_model_profiles;
    std::optional<std::string> m_continuous_dir;
    std::map<std::uint64_t, profile_session> m_sessions;
    std::uint64_t m_last_session_id = 0;
    std::optional<inspect_request> m_inspect;
    inspect_profiles m_inspect_profiles;
    bool m_inspect_at_init = false; // m_inspect is what NEURON_RT_INSPECT_ENABLE started at nrt_init
    std::map<std::uint32_t, std::uint32_t> m_continuous_last; // vnc: its last execution's profile
    std::uint64_t m_continuous_saves = 0;
    std::map<std::uint32_t, std::uint32_t> m_holders; // profile id: requests keeping it
    std::vector<std::uint32_t> m_unneeded;
    std::optional<bool> m_trace_mem;
    std::vector<unwritten_output> m_unwritten;
};

} // namespace neuron::shim

// The objects behind nrt_profile.h's opaque handles.
struct nrt_inspect_config {
    neuron::shim::inspect_settings settings;
};

struct nrt_profile_continuous_options {
    std::string output_dir = "./output";
};
