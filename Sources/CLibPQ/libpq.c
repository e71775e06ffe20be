// libpq's functions that jsonsql calls, each forwarding to the library opened with dlopen on
// first use. The declarations in libpq-fe.h check every signature here.
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

#define SLOT(name) static __typeof__(name) *name##_slot;
FUNCTIONS(SLOT)

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
    if (!(name##_slot = (__typeof__(name) *)dlsym(library, #name))) {                                  \
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
PGconn *PQconnectdb(const char *conninfo) {
    return jsonsql_libpq_load() ? NULL : PQconnectdb_slot(conninfo);
}

PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg) {
    if (jsonsql_libpq_load()) {
        if (errmsg) *errmsg = NULL;
        return NULL;
    }
    return PQconninfoParse_slot(conninfo, errmsg);
}

void PQfinish(PGconn *conn) { PQfinish_slot(conn); }
ConnStatusType PQstatus(const PGconn *conn) { return PQstatus_slot(conn); }
char *PQerrorMessage(const PGconn *conn) { return PQerrorMessage_slot(conn); }
int PQsocket(const PGconn *conn) { return PQsocket_slot(conn); }
PGresult *PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                       const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                       int resultFormat) {
    return PQexecParams_slot(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,
                             resultFormat);
}
int PQsendQuery(PGconn *conn, const char *query) { return PQsendQuery_slot(conn, query); }
int PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                      const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                      int resultFormat) {
    return PQsendQueryParams_slot(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,
                                  resultFormat);
}
PGresult *PQgetResult(PGconn *conn) { return PQgetResult_slot(conn); }
int PQisBusy(PGconn *conn) { return PQisBusy_slot(conn); }
int PQconsumeInput(PGconn *conn) { return PQconsumeInput_slot(conn); }
int PQputCopyData(PGconn *conn, const char *buffer, int nbytes) { return PQputCopyData_slot(conn, buffer, nbytes); }
int PQputCopyEnd(PGconn *conn, const char *errormsg) { return PQputCopyEnd_slot(conn, errormsg); }
ExecStatusType PQresultStatus(const PGresult *res) { return PQresultStatus_slot(res); }
char *PQresultErrorMessage(const PGresult *res) { return PQresultErrorMessage_slot(res); }
char *PQresultErrorField(const PGresult *res, int fieldcode) { return PQresultErrorField_slot(res, fieldcode); }
int PQntuples(const PGresult *res) { return PQntuples_slot(res); }
int PQnfields(const PGresult *res) { return PQnfields_slot(res); }
char *PQfname(const PGresult *res, int field_num) { return PQfname_slot(res, field_num); }
Oid PQftype(const PGresult *res, int field_num) { return PQftype_slot(res, field_num); }
char *PQgetvalue(const PGresult *res, int tup_num, int field_num) { return PQgetvalue_slot(res, tup_num, field_num); }
int PQgetlength(const PGresult *res, int tup_num, int field_num) { return PQgetlength_slot(res, tup_num, field_num); }
int PQgetisnull(const PGresult *res, int tup_num, int field_num) { return PQgetisnull_slot(res, tup_num, field_num); }
char *PQcmdTuples(PGresult *res) { return PQcmdTuples_slot(res); }
void PQclear(PGresult *res) { PQclear_slot(res); }
PGcancel *PQgetCancel(PGconn *conn) { return PQgetCancel_slot(conn); }
void PQfreeCancel(PGcancel *cancel) { PQfreeCancel_slot(cancel); }
int PQcancel(PGcancel *cancel, char *errbuf, int errbufsize) { return PQcancel_slot(cancel, errbuf, errbufsize); }
void PQfreemem(void *ptr) { PQfreemem_slot(ptr); }
void PQconninfoFree(PQconninfoOption *connOptions) { PQconninfoFree_slot(connOptions); }
PGTransactionStatusType PQtransactionStatus(const PGconn *conn) { return PQtransactionStatus_slot(conn); }
const char *PQparameterStatus(const PGconn *conn, const char *paramName) {
    return PQparameterStatus_slot(conn, paramName);
}
int PQgetCopyData(PGconn *conn, char **buffer, int async) { return PQgetCopyData_slot(conn, buffer, async); }
char *PQcmdStatus(PGresult *res) { return PQcmdStatus_slot(res); }
PQnoticeReceiver PQsetNoticeReceiver(PGconn *conn, PQnoticeReceiver proc, void *arg) {
    return PQsetNoticeReceiver_slot(conn, proc, arg);
}
