#pragma once

// Test support: an instance in stepped time with the model's API, sessions
// opened on it, and what executions answered.

#include "neuron/model/runtime/api.h"
#include "sim_helpers.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace neuron::model::testing {

struct instance {
    explicit instance(std::string name) : sim(stepped(std::move(name))), model(sim) {}

    session_grant open(core_selection selection, std::uint32_t first, std::uint32_t count, std::uint32_t lnc = 1,
                       std::string label = "test") {
        session_request r;
        r.label = std::move(label);
        r.lnc = lnc;
        r.selection = selection;
        r.first = first;
        r.count = count;
        return model.open_session(r);
    }
    counter_value core(std::uint32_t device, std::uint32_t c, counter_kind kind) const {
        return core_counter(sim, device, c, kind);
    }
    // 0: nobody (owner ids count from 1).
    owner_id owner_of(std::uint32_t device, std::uint32_t c) {
        for (const auto& o : model.who_holds_what().owners) {
            for (const auto& [d, k] : o.cores) {
                if (d == device && k == c) return o.id;
            }
        }
        return 0;
    }

    simulation sim;
    api model;
};

// What an execution answered, once it did.
struct answers {
    std::vector<execution_outcome> got;
    execution_done record() {
        return [this](const execution_outcome& o) { got.push_back(o); };
    }
};

template <typename Error>
auto says(std::string text) {
    return [text = std::move(text)](const Error& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

} // namespace neuron::model::testing
