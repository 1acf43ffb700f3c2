#include "profile_files.h"

#include "log.h"
#include "runtime.h"

#include "neuron/common/safe_output_file.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace neuron::shim::profile_files {

using protocol::message_type;

std::string fetch(control_client& client, std::span<const std::uint32_t> ids) {
    protocol::read_profile request;
    request.profile_ids.assign(ids.begin(), ids.end());
    std::string file;
    for (;;) {
        request.offset = file.size();
        const auto r = client.request(message_type::read_profile, request, message_type::profile_data);
        const auto piece = control_client::decode<protocol::profile_data>(r, "profile_data");
        if (piece.total_bytes < file.size() + piece.bytes.size()) {
            throw protocol::protocol_error("profile_data: a piece past the file's end");
        }
        file += piece.bytes;
        if (file.size() == piece.total_bytes) return file;
        if (piece.bytes.empty()) throw protocol::protocol_error("profile_data: an empty piece before the file's end");
    }
}

void drop(control_client& client, std::span<const std::uint32_t> ids) {
    if (ids.empty()) return;
    protocol::drop_profiles request;
    request.profile_ids.assign(ids.begin(), ids.end());
    client.request(message_type::drop_profiles, request, message_type::ok);
}

NRT_STATUS write(const char* fn, const std::string& path, const std::string& bytes) {
    try {
        common::write_output_file(path, bytes);
        return NRT_SUCCESS;
    } catch (const common::file_error& e) {
        log_error(fn, std::string("cannot write the profile ") + e.what());
        return NRT_FAILURE;
    }
}

NRT_STATUS make_directories(const char* fn, const std::string& dir) {
    try {
        ::close(common::make_output_directories(dir));
        return NRT_SUCCESS;
    } catch (const common::file_error& e) {
        log_error(fn, std::string("cannot make the directory ") + e.what());
        return NRT_FAILURE;
    }
}

std::optional<std::string> instance_id(const char* fn) {
    if (const char* id = std::getenv("NEURON_EMU_INSTANCE_ID"); id != nullptr && *id != '\0') return std::string(id);
    const auto instance = runtime::get().describe(fn);
    if (!instance) return std::nullopt;
    std::uint64_t hash = 14695981039346656037ull; // FNV-1a
    for (const char c : "neuron-emu/" + instance->name)
        hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    char id[24];
    std::snprintf(id, sizeof(id), "i-%017llx", static_cast<unsigned long long>(hash));
    return id;
}

} // namespace neuron::shim::profile_files
