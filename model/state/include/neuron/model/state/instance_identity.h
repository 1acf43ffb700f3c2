#pragma once

#include "neuron/model/state/published_state.h"

#include <string>

namespace neuron::model {

// What EC2 tells a guest about its instance: the type, and an instance id
// and a system UUID that follow the seed, as the devices' serial numbers do.
struct instance_identity {
    std::string type; // "trn2.48xlarge"
    std::string id;   // "i-" and 17 hex digits
    std::string uuid; // Nitro's form: "ec2" and 29 hex digits, dashed 8-4-4-4-12
};

instance_identity identity_of(const published_state& state);

} // namespace neuron::model
