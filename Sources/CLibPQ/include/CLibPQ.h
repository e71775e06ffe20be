// libpq, PostgreSQL's C client, for databases given as postgres:// URLs. Its declarations come
// from libpq-fe.h (Debian/Ubuntu: apt-get install libpq-dev); the library itself is opened on
// first use (libpq.c), so that commands on SQLite files do not load it and the twenty libraries
// it needs at every start.
#ifndef JSONSQL_CLIBPQ_H
#define JSONSQL_CLIBPQ_H

#include <postgresql/libpq-fe.h>

/// Opens libpq if it is not open yet: NULL once it is, otherwise why it cannot be.
const char *jsonsql_libpq_load(void);

#endif
