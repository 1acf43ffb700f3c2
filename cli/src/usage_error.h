#pragma once

#include <stdexcept>

namespace neuron::cli {

// Bad command-line input: the CLI prints the message and exits with status 2.
class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `--help` on a subcommand: not an error; the CLI prints the text and exits 0.
class help_requested : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace neuron::cli
