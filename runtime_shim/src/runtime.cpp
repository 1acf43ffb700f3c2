#include "runtime.h"

#include "api.h"
#include "core_selection.h"
#include "debug_streams.h"

#include <fstream>
#include <unistd.h>

namespace neuron::shim {

using protocol::message_type;

std::string process_label() {
    if (const char* tag = std::getenv("NEURON_PROCESS_TAG"); tag != nullptr && *tag != '\0') {
        return std::string(tag).substr(0, 255);
    }
    std::string comm;
    std::ifstream("/proc/self/comm") >> comm;
    return "pid " + std::to_string(::getpid()) + (comm.empty() ? "" : " (" + comm + ")");
}

// Never destroyed: threads of the asynchronous API may still use it while
// the process exits without nrt_close.
runtime& runtime::get() {
    static auto* instance = new runtime;
    return *instance;
}

NRT_STATUS runtime::init(long long framework, const char*, const char*) {
    const char* fn = "nrt_init";
    std::lock_guard lock(m_mutex);
    if (m_state == lifecycle::inited) {
        log_error(fn, "the runtime is already initialized in this process");
        return NRT_FAILURE;
    }
    if (framework < NRT_FRAMEWORK_TYPE_NO_FW || framework > NRT_FRAMEWORK_TYPE_PRECHECK) {
        return invalid(fn, "unknown framework type " + std::to_string(framework));
    }
    core_request request;
    try {
        request = read_core_request();
    } catch (const std::invalid_argument& e) {
        return invalid(fn, e.what());
    }
    const auto path = control_path();
    std::shared_ptr<control_client> client;
    try {
        client = std::make_shared<control_client>(path, protocol::peer_role::runtime, process_label());
    } catch (const std::exception& e) {
        log_error(fn, std::string("no emulator to run on: ") + e.what() +
                          " (start `neuron-emu serve`, or point NEURON_EMU_CONTROL at its control socket)");
        return NRT_FAILURE;
    }
    const auto instance = control_client::decode<protocol::instance_description>(
        client->request(message_type::describe_instance, protocol::empty_body{}, message_type::instance_description),
        "instance_description");
    const auto lnc = request.lnc.value_or(instance.default_lnc);
    if (lnc > instance.max_lnc) {
        return invalid(fn, "NEURON_LOGICAL_NC_CONFIG=" + std::to_string(lnc) + " is not supported on " + instance.name +
                               " (it takes " + (instance.max_lnc == 2 ? "1 or 2" : "only 1") + ")");
    }
    const auto opened = control_client::decode<protocol::session_opened>(
        client->request(message_type::open_session,
                        protocol::open_session{lnc, request.selection, request.first, request.count},
                        message_type::session_opened),
        "session_opened");
    m_client = std::move(client);
    m_session = {instance,       opened.token, opened.lnc, opened.first, opened.count, request.debug_stream_capacity,
                 ++m_generation, path};
    m_device_bytes.clear();
    m_state = lifecycle::inited;
    log_info(fn, "Neuron Runtime (neuron-emu) on " + instance.name + ": logical NeuronCores " +
                     std::to_string(opened.first) + "-" + std::to_string(opened.first + opened.count - 1) +
                     " (LNC=" + std::to_string(opened.lnc) + ")");
    return NRT_SUCCESS;
}

void runtime::close() {
    std::shared_ptr<control_client> client;
    {
        std::lock_guard lock(m_mutex);
        if (m_state != lifecycle::inited) return;
        client = std::move(m_client);
        m_state = lifecycle::closed;
    }
    debug_streams::get().close_all();
    try {
        // Released (cores, memory, datastore into sysfs) before nrt_close returns.
        client->request(message_type::close_session, protocol::empty_body{}, message_type::ok);
    } catch (const std::exception& e) {
        log_error("nrt_close", e.what());
    }
}

NRT_STATUS runtime::check(const char* function) const {
    std::lock_guard lock(m_mutex);
    switch (m_state) {
    case lifecycle::inited: return NRT_SUCCESS;
    case lifecycle::start: log_error(function, "called before nrt_init"); return NRT_UNINITIALIZED;
    case lifecycle::closed: log_error(function, "called after nrt_close"); return NRT_CLOSED;
    }
    return NRT_FAILURE;
}

std::shared_ptr<control_client> runtime::client() const {
    std::lock_guard lock(m_mutex);
    if (!m_client) throw protocol::connection_error("the runtime is not initialized");
    return m_client;
}

session_info runtime::session() const {
    std::lock_guard lock(m_mutex);
    return m_session;
}

std::uint64_t runtime::generation() const {
    std::lock_guard lock(m_mutex);
    return m_generation;
}

std::optional<protocol::instance_description> runtime::describe(const char* function) const {
    {
        std::lock_guard lock(m_mutex);
        if (m_state == lifecycle::inited) return m_session.instance;
    }
    const auto path = control_path();
    try {
        control_client client(path, protocol::peer_role::runtime, process_label());
        return control_client::decode<protocol::instance_description>(
            client.request(message_type::describe_instance, protocol::empty_body{}, message_type::instance_description),
            "instance_description");
    } catch (const std::exception& e) {
        log_error(function, std::string("no emulator to ask: ") + e.what());
        return std::nullopt;
    }
}

std::optional<std::uint32_t> runtime::total_count(const char* function) const {
    const auto instance = describe(function);
    if (!instance) return std::nullopt;
    std::uint32_t lnc = instance->default_lnc;
    bool inited = false;
    {
        std::lock_guard lock(m_mutex);
        inited = m_state == lifecycle::inited;
        if (inited) lnc = m_session.lnc;
    }
    if (!inited) {
        try {
            lnc = read_core_request().lnc.value_or(lnc);
        } catch (const std::invalid_argument& e) {
            log_error(function, e.what());
            return std::nullopt;
        }
        if (lnc > instance->max_lnc) { // nrt_init would refuse it too
            log_error(function, "NEURON_LOGICAL_NC_CONFIG=" + std::to_string(lnc) + " is not supported on " +
                                    instance->name + " (it takes only 1)");
            return std::nullopt;
        }
    }
    return instance->device_count * instance->physical_cores_per_device / lnc;
}

std::optional<std::uint32_t> runtime::visible_count(const char* function) const {
    {
        std::lock_guard lock(m_mutex);
        if (m_state == lifecycle::inited) return m_session.count;
    }
    const auto total = total_count(function);
    if (!total) return std::nullopt;
    try {
        const auto request = read_core_request();
        if (request.selection == protocol::core_selection::all_free) return total;
        return std::min(request.count, *total);
    } catch (const std::invalid_argument& e) {
        log_error(function, e.what());
        return std::nullopt;
    }
}

std::optional<std::uint32_t> runtime::global_core(int vnc) const {
    std::lock_guard lock(m_mutex);
    if (m_state != lifecycle::inited || vnc < 0 || static_cast<std::uint32_t>(vnc) >= m_session.count)
        return std::nullopt;
    return m_session.first + static_cast<std::uint32_t>(vnc);
}

std::uint64_t runtime::allocate(std::uint32_t global_core, protocol::memory_location where, std::uint32_t mem_type,
                                std::uint64_t size) {
    const auto r = client()->request(message_type::allocate, protocol::allocate{global_core, where, mem_type, size},
                                     message_type::allocated);
    return control_client::decode<protocol::allocated>(r, "allocated").id;
}

void runtime::free(std::uint64_t generation, std::uint64_t allocation) {
    std::shared_ptr<control_client> client;
    {
        std::lock_guard lock(m_mutex);
        // After nrt_close the emulator freed everything with the session.
        if (m_state != lifecycle::inited || generation != m_generation) return;
        client = m_client;
    }
    try {
        client->request(message_type::free_memory, protocol::free_memory{allocation}, message_type::ok);
    } catch (const std::exception& e) {
        log_error("nrt_tensor_free", e.what());
    }
}

void runtime::account_device_bytes(std::uint64_t generation, std::uint32_t vnc, std::int64_t delta) {
    std::lock_guard lock(m_mutex);
    if (generation != m_generation) return; // a tensor from before the last nrt_close
    m_device_bytes[vnc] += static_cast<std::uint64_t>(delta);
}

std::uint64_t runtime::device_bytes(std::uint32_t vnc) const {
    std::lock_guard lock(m_mutex);
    const auto it = m_device_bytes.find(vnc);
    return it == m_device_bytes.end() ? 0 : it->second;
}

} // namespace neuron::shim
