#include "neuron/sysfs/system_calls.h"

#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace neuron::sysfs {

system_calls& sys() {
    static system_calls table{::read, ::write, ::umount2, ::statfs};
    return table;
}

} // namespace neuron::sysfs
