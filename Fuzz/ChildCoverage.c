// Linked into the jsonsql binary that the command-line fuzzer runs (built with
// -sanitize-coverage=inline-8bit-counters). At exit it copies the binary's edge counters to the
// file descriptor the harness names in JSONSQL_FUZZ_COVERAGE_FD, so libFuzzer is guided by what
// jsonsql itself executed, not only by the harness. Without that variable it does nothing.
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static uint8_t *counters, *countersEnd;

static void writeCounters(void) {
    const char *fd = getenv("JSONSQL_FUZZ_COVERAGE_FD");
    if (!fd || !counters) return;
    size_t size = (size_t)(countersEnd - counters);
    ssize_t written = pwrite(atoi(fd), counters, size, 0);
    (void)written;
}

void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *end) {
    // Every object's constructor passes the same linked section; register the exit hook once.
    if (!counters) atexit(writeCounters);
    if (!counters || start < counters) counters = start;
    if (end > countersEnd) countersEnd = end;
}

void __sanitizer_cov_pcs_init(const uintptr_t *start, const uintptr_t *end) {
    (void)start;
    (void)end;
}
