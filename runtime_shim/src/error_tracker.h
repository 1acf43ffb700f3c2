#pragma once

// Error trackers of the 2.x asynchronous API: the failed requests, added from
// the execution units' threads. Requests in flight keep the record alive, so
// the handle may be destroyed before they complete.

#include "nrt/nrt_async.h"

#include <memory>
#include <mutex>
#include <vector>

namespace neuron::shim {

class error_record {
public:
    void add(nrta_seq_t seq, NRT_STATUS status) {
        std::lock_guard lock(m_mutex);
        m_errors.push_back({seq, static_cast<std::uint64_t>(status)});
    }
    std::vector<nrta_error_t> snapshot() const {
        std::lock_guard lock(m_mutex);
        return m_errors;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<nrta_error_t> m_errors;
};

} // namespace neuron::shim

struct nrta_error_tracker {
    std::uint32_t lnc = 0;
    std::shared_ptr<neuron::shim::error_record> errors = std::make_shared<neuron::shim::error_record>();
    std::vector<nrta_error_t> listed; // what get_list handed out last: valid until the next call
};
