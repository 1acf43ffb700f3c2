// The profiles the emulator recorded for the profile and inspect requests
// (profile_requests.h): which executions are recorded, who keeps each
// profile, and writing them.

#include "profile_requests.h"

#include "api.h"
#include "profile_files.h"
#include "runtime.h"

#include <unistd.h>

namespace neuron::shim {

bool profile_requests::wants_profile(std::uint32_t model_id, int vnc) const {
    std::lock_guard lock(m_mutex);
    for (const auto& [file, p] : m_model_profiles) {
        if (p.model_id == model_id) return true;
    }
    if (m_continuous_dir) return true;
    for (const auto& [id, s] : m_sessions) {
        if (s.running && s.vnc == vnc) return true;
    }
    if (!m_inspect || !m_inspect->settings.captures_device_profiles()) return false;
    const auto& settings = m_inspect->settings;
    if (settings.enable_inspect_on_fail) return true; // kept only when it fails
    if (settings.device_profile_mode == NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION) return true;
    return !m_inspect_profiles.first.contains({model_id, vnc}); // model mode: the first execution per core
}

void profile_requests::recorded(std::uint32_t model_id, int vnc, std::uint32_t profile_id, std::uint32_t status) {
    {
        std::lock_guard lock(m_mutex);
        hold(profile_id); // while it is filed
        for (auto& [file, p] : m_model_profiles) {
            if (p.model_id != model_id) continue;
            hold(profile_id);
            if (p.last_profile != 0) release(p.last_profile);
            p.last_profile = profile_id;
        }
        if (m_continuous_dir) {
            auto& last = m_continuous_last[static_cast<std::uint32_t>(vnc)];
            hold(profile_id);
            if (last != 0) release(last);
            last = profile_id;
        }
        for (auto& [id, s] : m_sessions) {
            if (!s.running || s.vnc != vnc) continue;
            hold(profile_id);
            s.profiles.push_back(profile_id);
        }
        if (m_inspect && m_inspect->settings.captures_device_profiles()) {
            const auto& settings = m_inspect->settings;
            if (settings.enable_inspect) {
                if (settings.device_profile_mode == NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION) {
                    hold(profile_id);
                    m_inspect_profiles.session[vnc].push_back(profile_id);
                } else if (m_inspect_profiles.first.emplace(std::pair{model_id, vnc}, profile_id).second) {
                    hold(profile_id);
                }
            }
            if (settings.enable_inspect_on_fail && status != NRT_SUCCESS) {
                hold(profile_id);
                m_inspect_profiles.failed.push_back({model_id, vnc, profile_id});
            }
        }
        release(profile_id);
    }
    forget_unneeded();
}

void profile_requests::hold(std::uint32_t id) { ++m_holders[id]; }

void profile_requests::release(std::uint32_t id) {
    const auto it = m_holders.find(id);
    if (it == m_holders.end()) return;
    if (--it->second > 0) return;
    m_holders.erase(it);
    m_unneeded.push_back(id);
}

void profile_requests::release(const std::vector<std::uint32_t>& ids) {
    for (const auto id : ids) release(id);
}

void profile_requests::forget_unneeded() {
    std::vector<std::uint32_t> ids;
    {
        std::lock_guard lock(m_mutex);
        ids.swap(m_unneeded);
    }
    if (ids.empty()) return;
    const auto client = runtime::get().client();
    if (client) profile_files::drop(*client, ids);
}

NRT_STATUS profile_requests::save(const char* fn, const std::string& path, const std::vector<std::uint32_t>& ids) {
    const auto client = runtime::get().client();
    if (!client) return invalid(fn, "the runtime is closed: its profiles went with it");
    std::string file;
    try {
        file = profile_files::fetch(*client, ids);
    } catch (const request_failed& e) {
        // A profile not kept, or no room to build the file: the caller still
        // releases what it held, so the emulator forgets them.
        log_error(fn, "nothing written to " + path + ": " + e.what());
        return static_cast<NRT_STATUS>(e.status());
    }
    return profile_files::write(fn, path, file);
}

// Into <output_dir>/<instance id>_pid_<pid>/: in model mode
// <model>_instid_0_vnc_<vnc>.ntff, the first execution of each model per
// core; in session mode profile_nc_<vnc>_session_<session>.ntff, every
// execution per core; on failure <model>_instid_<n>_vnc_<vnc>_failed.ntff.
// The model id stands for the vendor's NEFF hash.
NRT_STATUS profile_requests::save_inspect_profiles(const char* fn, const std::string& output_dir,
                                                   const inspect_profiles& captured) {
    if (captured.first.empty() && captured.session.empty() && captured.failed.empty()) return NRT_SUCCESS;
    const auto instance = profile_files::instance_id(fn);
    if (!instance) return NRT_FAILURE;
    const auto dir = output_dir + "/" + *instance + "_pid_" + std::to_string(::getpid());
    if (const auto status = profile_files::make_directories(fn, dir); status != NRT_SUCCESS) return status;
    NRT_STATUS status = NRT_SUCCESS;
    const auto keep = [&](NRT_STATUS s) {
        if (status == NRT_SUCCESS) status = s;
    };
    for (const auto& [key, id] : captured.first) {
        keep(save(fn, dir + "/" + std::to_string(key.first) + "_instid_0_vnc_" + std::to_string(key.second) + ".ntff",
                  {id}));
    }
    for (const auto& [vnc, ids] : captured.session) {
        keep(save(fn,
                  dir + "/profile_nc_" + std::to_string(vnc) + "_session_" + std::to_string(captured.session_id) +
                      ".ntff",
                  ids));
    }
    for (std::size_t n = 0; n < captured.failed.size(); ++n) {
        const auto& f = captured.failed[n];
        keep(save(fn,
                  dir + "/" + std::to_string(f.model_id) + "_instid_" + std::to_string(n + 1) + "_vnc_" +
                      std::to_string(f.vnc) + "_failed.ntff",
                  {f.profile}));
    }
    return status;
}

} // namespace neuron::shim
