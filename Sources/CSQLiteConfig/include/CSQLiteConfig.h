#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// Puts SQLite in multi-thread mode (no mutex on each connection call) before it initializes.
/// Safe for jsonsql because GRDB never uses one connection from two threads at once.
/// Returns SQLite's result code; SQLITE_MISUSE once SQLite is already initialized.
int jsonsql_sqlite_config_multithread(void);

#endif
