// libpq, PostgreSQL's C client, for databases given as postgres:// URLs.
// Debian/Ubuntu: apt-get install libpq-dev
#ifndef JSONSQL_CLIBPQ_SHIM_H
#define JSONSQL_CLIBPQ_SHIM_H

#include <postgresql/libpq-fe.h>

#endif
