#pragma once

// What the profile and inspect calls asked for (reference/nrt-api-surface.md
// §9), checked and kept in one place for the work that writes the profile
// files. neuron-emu writes none yet: every call that would write one logs a
// WARN line saying so and adds it to unwritten().

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
inline constexpr std::array<const char*, 4> activity_names{"system_profile", "device_profile", "host_memory", "cpu_util"};
using activity_set = std::bitset<activity_names.size()>;
std::optional<activity> activity_named(std::string_view name);

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
};

struct profile_session {
    std::uint64_t id = 0;
    std::int32_t vnc = 0;
    bool running = true;
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

    // What the profiles work reads.
    std::map<std::string, model_profile> model_profiles() const; // by file name
    std::optional<std::string> continuous_output_dir() const;     // while continuous profiling runs
    std::vector<profile_session> sessions() const;
    std::optional<inspect_request> inspect() const;
    std::optional<bool> trace() const; // trace_mem, while tracing
    std::vector<unwritten_output> unwritten() const;

private:
    void not_written(const char* fn, std::string path, std::optional<std::uint32_t> vnc);

    mutable std::mutex m_mutex;
    std::map<std::string, model_profile> m_model_profiles;
    std::optional<std::string> m_continuous_dir;
    std::map<std::uint64_t, profile_session> m_sessions;
    std::uint64_t m_last_session_id = 0;
    std::optional<inspect_request> m_inspect;
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
