// runtime_service's load path: a NEFF or a model file, whole or in pieces,
// read at once or on the NEFF thread.

#include "neuron/control/runtime_service.h"

#include "runtime_replies.h"

#include "neuron/control/model_file.h"
#include "neuron/control/neff_model.h"
#include "neuron/model/state/published_state.h"

#include <fmt/format.h>

#include <utility>

namespace neuron::control {
namespace {

using protocol::message_type;
using replies::answering;
using replies::error_message;
namespace nrt = model::nrt_status;

std::vector<std::uint8_t> loaded_reply(model::api& model, model::owner_id owner, std::optional<std::uint32_t> core,
                                       std::uint32_t request_id, model_definition definition) {
    auto tensors = std::move(definition.tensors);
    auto name = definition.name;
    const auto placed = model.load(owner, core, std::move(definition));
    return protocol::make_message(
        message_type::model_loaded, request_id,
        protocol::model_loaded{placed.model, placed.logical_core, std::move(name), std::move(tensors)});
}

// The model a NEFF defines; what is wrong with one, as the runtime's log line says it.
model_definition neff_definition(const std::string& bytes, const neff::scratchpad_layout& layout,
                                 const neff::stop_test& stopped) {
    try {
        return define_neff(neff::read_neff(bytes, {stopped, nullptr}), layout);
    } catch (const neff::neff_error& e) {
        const auto file = neff::header_name(bytes);
        throw request_error(nrt::invalid, fmt::format("NEFF \"{}\" ({} bytes) cannot be loaded: {}",
                                                      file.empty() ? "?" : file, bytes.size(), e.what()));
    }
}

std::optional<std::uint32_t> logical_core_of(std::int32_t wanted) {
    if (wanted < 0) return std::nullopt;
    return static_cast<std::uint32_t>(wanted);
}

} // namespace

void runtime_service::drop_staged(std::uint64_t connection) { m_uploads.drop(connection); }

void runtime_service::stage(std::uint64_t connection, const protocol::model_piece& piece) {
    m_uploads.add_piece(connection, piece);
}

std::optional<std::vector<std::uint8_t>> runtime_service::load(std::uint64_t connection, const session& s,
                                                               std::uint32_t request_id,
                                                               protocol::load_model& request) {
    auto bytes = m_uploads.finish(connection, std::move(request.bytes));
    const auto core = logical_core_of(request.logical_core);
    const auto refused = [&] { m_model.count_refused_load(s.owner, core, nrt::invalid); };
    if (!neff::looks_like_neff(bytes)) {
        if (!looks_like_model_file(bytes)) {
            refused();
            throw request_error(nrt::invalid, "neither a NEFF nor an emulated model file (runtime_shim/MODEL_FILE.md)");
        }
        if (bytes.size() <= protocol::max_model_piece_bytes) {
            model_definition definition;
            try {
                definition = parse_model_file(bytes, "model");
            } catch (const std::exception&) {
                refused();
                throw;
            }
            return loaded_reply(m_model, s.owner, core, request_id, std::move(definition));
        }
        // A model file of megabytes takes seconds to read: other clients do
        // not wait for it.
        read_in_background(
            connection, request_id, s.owner, core, std::move(bytes),
            [](const std::string& text, const neff::stop_test&) { return parse_model_file(text, "model"); });
        return std::nullopt;
    }
    neff::scratchpad_layout layout;
    try {
        layout = scratchpad_layout_for(m_model.published().instance(), s.lnc, request.contiguous_scratchpad_off,
                                       request.scratchpad_page_mib);
    } catch (const request_error&) {
        refused();
        throw;
    }
    // A NEFF of gigabytes takes seconds to read: other clients do not wait
    // for it. Its client leaving, or the server stopping, ends the reading.
    read_in_background(connection, request_id, s.owner, core, std::move(bytes),
                       [layout](const std::string& neff, const neff::stop_test& stopped) {
                           return neff_definition(neff, layout, stopped);
                       });
    return std::nullopt;
}

void runtime_service::read_in_background(std::uint64_t connection, std::uint32_t request_id, model::owner_id owner,
                                         std::optional<std::uint32_t> core, std::string bytes, definer define) {
    m_uploads.read_later(connection, std::move(bytes),
                         [model = &m_model, replies = m_reply_later, connection, request_id, owner, core,
                          define = std::move(define)](const std::string& file, const neff::stop_test& stopped) {
                             std::vector<std::uint8_t> reply;
                             try {
                                 reply = *answering(request_id, [&]() -> std::optional<std::vector<std::uint8_t>> {
                                     model_definition definition;
                                     try {
                                         definition = define(file, stopped);
                                     } catch (const request_error&) { // a bad NEFF
                                         model->count_refused_load(owner, core, nrt::invalid);
                                         throw;
                                     } catch (const common::yaml_error&) { // a bad model file
                                         model->count_refused_load(owner, core, nrt::invalid);
                                         throw;
                                     }
                                     return loaded_reply(*model, owner, core, request_id, std::move(definition));
                                 });
                             } catch (const neff::read_cancelled&) {
                                 return; // its client left, or the emulator stops: no one to answer
                             } catch (const std::exception& e) { // out of host memory
                                 reply = error_message(request_id, nrt::failure, e.what());
                             }
                             replies->send(connection, std::move(reply));
                         });
}

} // namespace neuron::control
