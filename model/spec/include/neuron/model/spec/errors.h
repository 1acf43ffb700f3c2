#pragma once

#include <stdexcept>
#include <string>

namespace neuron::model {

// Base of every error the model reports. Commands validate before they change
// anything, so an error means nothing was applied.
class model_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A command argument out of range or malformed (core index, count, ECC kind ...).
class invalid_argument_error : public model_error {
public:
    using model_error::model_error;
};

// An instance type name that is not in the catalogue; the message lists the valid names.
class unknown_instance_error : public invalid_argument_error {
public:
    using invalid_argument_error::invalid_argument_error;
};

// The arch of this instance does not have the feature (e.g. ECC registers on Inf1).
class unsupported_error : public model_error {
public:
    using model_error::model_error;
};

// A core is owned by another runtime session.
class resource_busy_error : public model_error {
public:
    using model_error::model_error;
};

// Device memory exhausted.
class out_of_memory_error : public model_error {
public:
    using model_error::model_error;
};

// The simulation is not running (stopped, or failed to start), or the call
// was made in a way the kernel thread cannot serve.
class simulation_error : public model_error {
public:
    using model_error::model_error;
};

} // namespace neuron::model
