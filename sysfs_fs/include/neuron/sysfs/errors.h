#pragma once

#include "neuron/model/spec/errors.h"

namespace neuron::sysfs {

// A --driver-version the emulator has no layout for; the message lists the known ones.
class unknown_driver_version_error : public model::invalid_argument_error {
public:
    using model::invalid_argument_error::invalid_argument_error;
};

// The instance type did not exist for the chosen driver release (Trn2 before
// 2.16, Inf1 from 2.25).
class unsupported_combination_error : public model::invalid_argument_error {
public:
    using model::invalid_argument_error::invalid_argument_error;
};

// Mounting, unmounting or preparing a mount point failed; the message says
// where and why.
class mount_error : public model::model_error {
public:
    using model::model_error::model_error;
};

} // namespace neuron::sysfs
