#include "control_server_under_test.h"

#include "control_peer.h"

#include "../neff/tests/neff_builder.h"

#include "neuron/model/runtime/platform.h"
#include "neuron/protocol/messages.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace neuron::fuzz {
namespace {

using namespace neuron::protocol;

constexpr const char* passed_descriptor_name = "fuzz-passed-descriptor";

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) finding("cannot read " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Reachable by the second process, which may run as another user.
std::string temporary_directory() {
    char name[] = "/tmp/neuron-fuzz-control.XXXXXX";
    if (::mkdtemp(name) == nullptr) finding("mkdtemp failed");
    if (::chmod(name, 0711) != 0) finding("chmod of the socket's directory failed");
    return name;
}

model::platform_config stepped_config() {
    model::platform_config config;
    config.instance = "trn2.3xlarge";
    config.mode = model::time_mode::stepped;
    config.reset_duration = std::chrono::milliseconds(1);
    config.start_epoch_ns = 1'789'180'860'000'000'000;
    return config;
}

} // namespace

server_under_test::server_under_test()
        : dir(temporary_directory()), path(dir + "/control.sock"), second(path), sim(stepped_config()),
          server(sim, control::control_options{path, 0666, "2.24.7.0", {}, {}}),
          models{read_file(NEURON_EXAMPLE_MODELS "/add.yaml"), read_file(NEURON_EXAMPLE_MODELS "/flaky.yaml"),
                 read_file(NEURON_EXAMPLE_MODELS "/identity_with_prints.yaml")},
          neffs{neff::testing::neff_builder::two_core_matmul().bytes(),
                neff::testing::neff_builder::one_core_minimal().bytes()},
          passed(::memfd_create(passed_descriptor_name, MFD_CLOEXEC)) {}

server_under_test::~server_under_test() {
    server.stop();
    sim.stop();
    ::close(passed);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
}

std::size_t open_descriptors(const server_under_test& s, std::size_t* passed_copies) {
    std::size_t count = 0;
    *passed_copies = 0;
    const auto own = "/proc/self/fd/" + std::to_string(s.passed);
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        ++count;
        std::error_code error;
        const auto target = std::filesystem::read_symlink(entry.path(), error).string();
        if (!error && entry.path() != own && target.starts_with(std::string("/memfd:") + passed_descriptor_name)) {
            ++*passed_copies;
        }
    }
    return count;
}

void check_server(server_under_test& s) {
    control_peer ctl(s.path);
    if (!ctl.send(make_message(message_type::hello, 1, hello{peer_role::control, 0, "fuzz-check"}))) {
        finding("the server closed a fresh control connection before its hello");
    }
    auto reply = ctl.receive("the hello of a fresh control connection");
    if (!reply || decode_header(reply->bytes.data(), reply->bytes.size()).type !=
                      static_cast<std::uint16_t>(message_type::hello_ok)) {
        finding("the server no longer greets a fresh control connection");
    }
    if (!ctl.send(make_message(message_type::status, 2, empty_body{})))
        finding("the server dropped a fresh control connection");
    reply = ctl.receive("status on a fresh control connection");
    if (!reply || decode_header(reply->bytes.data(), reply->bytes.size()).type !=
                      static_cast<std::uint16_t>(message_type::status_report)) {
        finding("the server no longer answers status on a fresh control connection");
    }
    // The server settles runtime hangups before it answers a control request.
    const auto owners = s.sim.call([](model::platform& p) { return p.owners().owners().size(); });
    if (owners != 0) finding(fmt::format("{} runtime sessions outlived their closed connections", owners));
    std::size_t passed_copies = 0;
    const auto descriptors = open_descriptors(s, &passed_copies);
    if (passed_copies != 0)
        finding(fmt::format("the server kept {} descriptors that clients attached to messages", passed_copies));
    // Connections closed by the client may still be closing on the server's side; a few are in flight at most.
    if (descriptors > s.descriptors_at_start + 32) {
        finding(fmt::format("{} descriptors open, {} at start: the server leaks them", descriptors,
                            s.descriptors_at_start));
    }
}

} // namespace neuron::fuzz
