#pragma once

// What runtime_service's requests answer: their reply, or the error reply
// their failure is, with the NRT_STATUS the runtime returns for it. Shared
// by the files that handle its requests.

#include "neuron/common/yaml_fields.h"
#include "neuron/control/runtime_service.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/protocol/messages.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuron::control::replies {

inline std::vector<std::uint8_t> error_message(std::uint32_t request_id, std::uint32_t status,
                                               const std::string& text) {
    return protocol::make_message(protocol::message_type::error, request_id, protocol::error_reply{status, text});
}

// What `request()` answers, or the error reply its failure is: the
// NRT_STATUS the runtime returns for it.
template <typename Request>
std::optional<std::vector<std::uint8_t>> answering(std::uint32_t id, Request&& request) {
    try {
        return request();
    } catch (const request_error& e) {
        return error_message(id, e.status(), e.what());
    } catch (const model::resource_busy_error& e) {
        return error_message(id, model::nrt_status::resource, e.what());
    } catch (const model::out_of_memory_error& e) {
        return error_message(id, model::nrt_status::resource, e.what());
    } catch (const model::simulation_error& e) {
        return error_message(id, model::nrt_status::failure, e.what());
    } catch (const model::model_error& e) { // invalid argument, unsupported
        return error_message(id, model::nrt_status::invalid, e.what());
    } catch (const common::yaml_error& e) {
        return error_message(id, model::nrt_status::invalid, e.what());
    }
}

} // namespace neuron::control::replies
