// libpq's functions that jsonsql calls, each under jsonsql's own name (CLibPQ.h), forwarding to
// the library opened with dlopen on first use. Compiled with -DJSONSQL_LIBPQ_FE, libpq-fe.h's
// declarations check every signature here (SAME_TYPE; LibPQDeclarationTests does).
#include "CLibPQ.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure;
static char failureText[512];

#define FUNCTIONS(X) \
    X(PQconnectdb) X(PQfinish) X(PQstatus) X(PQerrorMessage) X(PQsocket) X(PQexecParams) \
    X(PQsendQuery) X(PQsendQueryParams) X(PQgetResult) X(PQisBusy) X(PQconsumeInput) \
    X(PQputCopyData) X(PQputCopyEnd) X(PQresultStatus) X(PQresultErrorMessage) \
    X(PQresultErrorField) X(PQntuples) X(PQnfields) X(PQfname) X(PQftype) X(PQgetvalue) \
    X(PQgetlength) X(PQgetisnull) X(PQcmdTuples) X(PQclear) X(PQgetCancel) X(PQfreeCancel) \
    X(PQcancel) X(PQfreemem) X(PQconninfoParse) X(PQconninfoFree) \
    X(PQtransactionStatus) X(PQparameterStatus) X(PQgetCopyData) X(PQcmdStatus) \
    X(PQsetNoticeReceiver)

#define SLOT(name) static __typeof__(jsonsql_##name) *name##_slot;
FUNCTIONS(SLOT)

#ifdef JSONSQL_LIBPQ_FE
// Each jsonsql_ function has the type of libpq's own, which its slot holds.
#define SAME_TYPE(name)                                                                        \
    _Static_assert(__builtin_types_compatible_p(__typeof__(name), __typeof__(jsonsql_##name)), \
                   "jsonsql_" #name " is declared otherwise than libpq's " #name);
FUNCTIONS(SAME_TYPE)
#endif

static void load(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libpq.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failureText, sizeof failureText,
                 "the PostgreSQL client library libpq cannot be loaded (%s); install it: apt-get install libpq5",
                 dlerror());
        failure = failureText;
        return;
    }
#define RESOLVE(name)                                                                                  \
    if (!(name##_slot = (__typeof__(jsonsql_##name) *)dlsym(library, #name))) {                        \
        snprintf(failureText, sizeof failureText, "the PostgreSQL client library libpq lacks " #name); \
        failure = failureText;                                                                         \
        return;                                                                                        \
    }
    FUNCTIONS(RESOLVE)
}

const char *jsonsql_libpq_load(void) {
    pthread_once(&once, load);
    return failure;
}

// The two ways in: each opens the library first, and gives NULL when it cannot be opened
// (jsonsql_libpq_load says why). Every other function takes what these return.
PGconn *jsonsql_PQconnectdb(const char *conninfo) {
    return jsonsql_libpq_load() ? NULL : PQconnectdb_slot(conninfo);
}

PQconninfoOption *jsonsql_PQconninfoParse(const char *conninfo, char **errmsg) {
    if (jsonsql_libpq_load()) {
        if (errmsg) *errmsg = NULL;
        return NULL;
    }
    return PQconninfoParse_slot(conninfo, errmsg);
}

void jsonsql_PQfinish(PGconn *conn) { PQfinish_slot(conn); }
ConnStatusType jsonsql_PQstatus(const PGconn *conn) { return PQstatus_slot(conn); }
char *jsonsql_PQerrorMessage(const PGconn *conn) { return PQerrorMessage_slot(conn); }
int jsonsql_PQsocket(const PGconn *conn) { return PQsocket_slot(conn); }
PGresult *jsonsql_PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                               const char *const *paramValues, const int *paramLengths,
                               const int *paramFormats, int resultFormat) {
    return PQexecParams_slot(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,
                             resultFormat);
}
int jsonsql_PQsendQuery(PGconn *conn, const char *query) { return PQsendQuery_slot(conn, query); }
int jsonsql_PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                              const char *const *paramValues, const int *paramLengths,
                              const int *paramFormats, int resultFormat) {
    return PQsendQueryParams_slot(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,
                                  resultFormat);
}
PGresult *jsonsql_PQgetResult(PGconn *conn) { return PQgetResult_slot(conn); }
int jsonsql_PQisBusy(PGconn *conn) { return PQisBusy_slot(conn); }
int jsonsql_PQconsumeInput(PGconn *conn) { return PQconsumeInput_slot(conn); }
int jsonsql_PQputCopyData(PGconn *conn, const char *buffer, int nbytes) { return PQputCopyData_slot(conn, buffer, nbytes); }
int jsonsql_PQputCopyEnd(PGconn *conn, const char *errormsg) { return PQputCopyEnd_slot(conn, errormsg); }
ExecStatusType jsonsql_PQresultStatus(const PGresult *res) { return PQresultStatus_slot(res); }
char *jsonsql_PQresultErrorMessage(const PGresult *res) { return PQresultErrorMessage_slot(res); }
char *jsonsql_PQresultErrorField(const PGresult *res, int fieldcode) { return PQresultErrorField_slot(res, fieldcode); }
int jsonsql_PQntuples(const PGresult *res) { return PQntuples_slot(res); }
int jsonsql_PQnfields(const PGresult *res) { return PQnfields_slot(res); }
char *jsonsql_PQfname(const PGresult *res, int field_num) { return PQfname_slot(res, field_num); }
Oid jsonsql_PQftype(const PGresult *res, int field_num) { return PQftype_slot(res, field_num); }
char *jsonsql_PQgetvalue(const PGresult *res, int tup_num, int field_num) { return PQgetvalue_slot(res, tup_num, field_num); }
int jsonsql_PQgetlength(const PGresult *res, int tup_num, int field_num) { return PQgetlength_slot(res, tup_num, field_num); }
int jsonsql_PQgetisnull(const PGresult *res, int tup_num, int field_num) { return PQgetisnull_slot(res, tup_num, field_num); }
char *jsonsql_PQcmdTuples(PGresult *res) { return PQcmdTuples_slot(res); }
void jsonsql_PQclear(PGresult *res) { PQclear_slot(res); }
PGcancel *jsonsql_PQgetCancel(PGconn *conn) { return PQgetCancel_slot(conn); }
void jsonsql_PQfreeCancel(PGcancel *cancel) { PQfreeCancel_slot(cancel); }
int jsonsql_PQcancel(PGcancel *cancel, char *errbuf, int errbufsize) { return PQcancel_slot(cancel, errbuf, errbufsize); }
void jsonsql_PQfreemem(void *ptr) { PQfreemem_slot(ptr); }
void jsonsql_PQconninfoFree(PQconninfoOption *connOptions) { PQconninfoFree_slot(connOptions); }
PGTransactionStatusType jsonsql_PQtransactionStatus(const PGconn *conn) { return PQtransactionStatus_slot(conn); }
const char *jsonsql_PQparameterStatus(const PGconn *conn, const char *paramName) {
    return PQparameterStatus_slot(conn, paramName);
}
int jsonsql_PQgetCopyData(PGconn *conn, char **buffer, int async) { return PQgetCopyData_slot(conn, buffer, async); }
char *jsonsql_PQcmdStatus(PGresult *res) { return PQcmdStatus_slot(res); }
PQnoticeReceiver jsonsql_PQsetNoticeReceiver(PGconn *conn, PQnoticeReceiver proc, void *arg) {
    return PQsetNoticeReceiver_slot(conn, proc, arg);
}
