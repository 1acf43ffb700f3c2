#include "model_upload.h"

#include "control_client.h"
#include "runtime.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>

namespace neuron::shim {
namespace {

using protocol::message_type;

// NEURON_SCRATCHPAD_PAGE_SIZE in MiB; 0 when unset. The emulator judges it,
// where it applies (a NEFF with paged scratchpad).
std::uint32_t scratchpad_page_mib() {
    const char* text = std::getenv("NEURON_SCRATCHPAD_PAGE_SIZE");
    if (text == nullptr || *text == '\0') return 0;
    std::uint32_t mib = 0;
    const auto end = text + std::strlen(text);
    const auto [rest, error] = std::from_chars(text, end, mib);
    if (error != std::errc{} || rest != end || mib == 0 || mib == protocol::unreadable_page_size) {
        return protocol::unreadable_page_size;
    }
    return mib;
}

// NEURON_RT_CONTIGUOUS_SCRATCHPAD is 0 or false (any case).
bool contiguous_scratchpad_off() {
    const char* text = std::getenv("NEURON_RT_CONTIGUOUS_SCRATCHPAD");
    if (text == nullptr) return false;
    std::string value(text);
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
    return value == "0" || value == "false";
}

} // namespace

protocol::model_loaded upload_model(const void* bytes, std::size_t size, std::int32_t global_core) {
    auto& client = *runtime::get().client();
    const std::string_view all(static_cast<const char*>(bytes), size);
    // The emulator keeps one file's pieces per process: another thread's
    // load waits until this one has ended.
    static std::mutex uploading;
    const std::lock_guard lock(uploading);
    std::size_t at = 0;
    while (size - at > protocol::max_model_piece_bytes) {
        client.request(message_type::model_piece,
                       protocol::model_piece{size, at, std::string(all.substr(at, protocol::max_model_piece_bytes))},
                       message_type::ok);
        at += protocol::max_model_piece_bytes;
    }
    const auto r = client.request(message_type::load_model,
                                  protocol::load_model{global_core, std::string(all.substr(at)), scratchpad_page_mib(),
                                                       contiguous_scratchpad_off()},
                                  message_type::model_loaded);
    return control_client::decode<protocol::model_loaded>(r, "model_loaded");
}

} // namespace neuron::shim
