// The canonical C program, compiled as C++17: the shim's headers must be
// usable from C++ (extern "C", no C-only constructs), as the runtime's are.
#include "../c/canonical.c"
