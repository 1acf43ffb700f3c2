/*
 * The self-checking test programs' checks: each broken expectation says
 * "FAIL line N: CONDITION: why", and finish_checks() says "checks N failed F"
 * and gives the exit status (1 when any failed).
 */
#pragma once

#include "common.h"

static int checks = 0;
static int failures = 0;

#define CHECK(condition, ...)                                                                                          \
    do {                                                                                                               \
        ++checks;                                                                                                      \
        if (!(condition)) {                                                                                            \
            ++failures;                                                                                                \
            printf("FAIL line %d: %s: ", __LINE__, #condition);                                                        \
            SAY(__VA_ARGS__);                                                                                          \
        }                                                                                                              \
    } while (0)

#define CHECK_IS(call, status) CHECK((call) == (status), "%s", #call)
#define CHECK_OK(call) CHECK_IS(call, NRT_SUCCESS)

static inline int finish_checks(void) {
    SAY("checks %d failed %d", checks, failures);
    return failures > 0 ? 1 : 0;
}
