#pragma once

#include <stdexcept>
#include <string>

namespace neuron::tools {

// Why the tools found no device to show.
enum class discovery_failure {
    no_driver,  // the driver's directory (the sample root) does not exist
    no_devices, // it exists and holds no neuronN
    unreadable, // it, a device's directory or a file saying what a device is cannot be read (permissions)
};

// The tree shows no device, or cannot be read. what() says why in the
// emulator's words; the vendor tools' own words are their views' business.
class no_devices_error : public std::runtime_error {
public:
    // No driver or no devices at `path`.
    no_devices_error(discovery_failure why, std::string path);
    // Unreadable: the system call ("open", "read") on `path` that failed with `error_number`.
    no_devices_error(std::string path, std::string operation, int error_number);

    discovery_failure why() const { return m_why; }
    const std::string& path() const { return m_path; }
    const std::string& operation() const { return m_operation; } // unreadable only
    int error_number() const { return m_error_number; }          // unreadable only

private:
    discovery_failure m_why;
    std::string m_path;
    std::string m_operation;
    int m_error_number = 0;
};

} // namespace neuron::tools
