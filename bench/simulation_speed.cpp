// Figure 8: simulation speed comes with the engines issue ("Engines, DMA
// and profiles"), which has not landed: there is no engine model to time.

#include "figures.h"
#include "support/measure.h"

namespace neuron::bench {

void simulation_speed(const context&) {
    print_unmeasured("8 simulation speed", "the engines issue has not landed (no engine model to time yet)");
}

} // namespace neuron::bench
