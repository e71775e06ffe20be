// The interruption flag (`Interruption` in JSONSQLKit): written by the handler of SIGINT, SIGTERM
// and SIGHUP on whichever thread the signal lands, read by every thread (SQLite's progress
// handlers, readers, waits). A C11 atomic that is always lock-free is both safe in a signal
// handler (there is no lock it could wait for) and free of data races between threads; a
// `volatile sig_atomic_t` is only the former. The flag is C's, not a Swift global, because Swift
// promises nothing about its code in a signal handler (a global's first use runs swift_once).
#include <stdatomic.h>
#include "CSQLiteConfig.h"

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler needs a lock-free atomic int");

static atomic_int requested = 0;

void jsonsql_interruption_request(int signal) { atomic_store(&requested, signal); }

int jsonsql_interruption_signal(void) { return atomic_load(&requested); }

int jsonsql_interruption_clear(void) { return atomic_exchange(&requested, 0); }
