#include <sqlite3.h>
#include "CSQLiteConfig.h"

// sqlite3_config is variadic, which Swift cannot call.
int jsonsql_sqlite_config_multithread(void) {
    // Memory statistics take a global mutex on every allocation; jsonsql reads none of them.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
}

// sqlite3_db_config is variadic too.
int jsonsql_sqlite_defensive(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

int jsonsql_sqlite_foreign_keys(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_ENABLE_FKEY, 1, (int *)0);
}

int jsonsql_sqlite_no_checkpoint_on_close(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

int jsonsql_sqlite_legacy_strings(void *db, int on, int *was) {
    int ignored = 0;
    int code = sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_DQS_DML, -1, was ? was : &ignored);
    if (code != SQLITE_OK || on < 0) return code;
    code = sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_DQS_DDL, on, (int *)0);
    if (code != SQLITE_OK) return code;
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_DQS_DML, on, (int *)0);
}
