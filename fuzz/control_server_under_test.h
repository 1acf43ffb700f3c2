#pragma once

// The control-server fuzzer's one model and server, alive for the whole run
// (SystemC allows one simulation per process), and the check after every
// input that the server still serves and holds nothing of its clients.

#include "second_process.h"

#include "neuron/control/control_server.h"
#include "neuron/model/runtime/simulation.h"

#include <cstddef>
#include <string>
#include <vector>

namespace neuron::fuzz {

struct server_under_test {
    server_under_test();
    ~server_under_test();
    server_under_test(const server_under_test&) = delete;
    server_under_test& operator=(const server_under_test&) = delete;

    std::string dir;
    std::string path;      // the control socket, open to every user (as --control-mode 0666 leaves it)
    second_process second; // forked before the model's threads start
    model::simulation sim;
    control::control_server server;
    std::vector<std::string> models; // example model files the project ships
    std::vector<std::string> neffs;  // synthetic NEFFs
    // What clients attach to their messages; the server must keep no copy.
    int passed = -1;
    std::size_t descriptors_at_start = 0;
};

// Descriptors open in this process, and how many of them are copies of `passed`.
std::size_t open_descriptors(const server_under_test& s, std::size_t* passed_copies);

// Reports a finding unless the server greets and answers a fresh control
// connection, holds no runtime session, and keeps no attached descriptor.
void check_server(server_under_test& s);

} // namespace neuron::fuzz
