#pragma once

namespace neuron::shim {

// nrt_close: every send/receive communicator and request of the process is
// gone, whether or not the application closed them (transfers in flight
// end on their own threads).
void forget_sendrecv();

} // namespace neuron::shim
