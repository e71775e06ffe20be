#include <sqlite3.h>
#include "CSQLiteConfig.h"

// sqlite3_config is variadic, which Swift cannot call.
int jsonsql_sqlite_config_multithread(void) {
    return sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
}
