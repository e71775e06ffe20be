// libpq, PostgreSQL's C client, for databases given as postgres:// URLs. The library is opened on
// first use (libpq.c), so that commands on SQLite files do not load it and the twenty libraries
// it needs at every start, and nothing of it is needed to build jsonsql.
//
// jsonsql calls libpq only through the functions below, each named as libpq's with jsonsql_ in
// front, so that a program that links jsonsql and libpq both gets each function once.
#ifndef JSONSQL_CLIBPQ_H
#define JSONSQL_CLIBPQ_H

#ifdef JSONSQL_LIBPQ_FE
// Checking the declarations below against libpq's own (LibPQDeclarationTests): libpq.c
// compiled with -DJSONSQL_LIBPQ_FE asserts that every jsonsql_ function has the type of libpq's.
#include <postgresql/libpq-fe.h>
#else
// libpq's types as its libpq-fe.h declares them (PostgreSQL 15), the part of its ABI that
// jsonsql uses: opaque handles, enums whose values only grow at the end, one struct. Declared
// here so that building jsonsql needs no libpq headers; LibPQDeclarationTests compares them
// with libpq-fe.h where it is installed.
typedef unsigned int Oid;

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
typedef struct pg_cancel PGcancel;

typedef enum {
    CONNECTION_OK,
    CONNECTION_BAD,
    CONNECTION_STARTED,
    CONNECTION_MADE,
    CONNECTION_AWAITING_RESPONSE,
    CONNECTION_AUTH_OK,
    CONNECTION_SETENV,
    CONNECTION_SSL_STARTUP,
    CONNECTION_NEEDED,
    CONNECTION_CHECK_WRITABLE,
    CONNECTION_CONSUME,
    CONNECTION_GSS_STARTUP,
    CONNECTION_CHECK_TARGET,
    CONNECTION_CHECK_STANDBY
} ConnStatusType;

typedef enum {
    PGRES_EMPTY_QUERY = 0,
    PGRES_COMMAND_OK,
    PGRES_TUPLES_OK,
    PGRES_COPY_OUT,
    PGRES_COPY_IN,
    PGRES_BAD_RESPONSE,
    PGRES_NONFATAL_ERROR,
    PGRES_FATAL_ERROR,
    PGRES_COPY_BOTH,
    PGRES_SINGLE_TUPLE,
    PGRES_PIPELINE_SYNC,
    PGRES_PIPELINE_ABORTED
} ExecStatusType;

typedef enum {
    PQTRANS_IDLE,
    PQTRANS_ACTIVE,
    PQTRANS_INTRANS,
    PQTRANS_INERROR,
    PQTRANS_UNKNOWN
} PGTransactionStatusType;

typedef void (*PQnoticeReceiver)(void *arg, const PGresult *res);

typedef struct _PQconninfoOption {
    char *keyword;
    char *envvar;
    char *compiled;
    char *val;
    char *label;
    char *dispchar;
    int dispsize;
} PQconninfoOption;
#endif

/// Opens libpq if it is not open yet: NULL once it is, otherwise why it cannot be.
const char *jsonsql_libpq_load(void);

// The two ways in: each opens the library first, and gives NULL when it cannot be opened
// (jsonsql_libpq_load says why). Every other function takes what these return.
PGconn *jsonsql_PQconnectdb(const char *conninfo);
PQconninfoOption *jsonsql_PQconninfoParse(const char *conninfo, char **errmsg);

void jsonsql_PQfinish(PGconn *conn);
ConnStatusType jsonsql_PQstatus(const PGconn *conn);
char *jsonsql_PQerrorMessage(const PGconn *conn);
int jsonsql_PQsocket(const PGconn *conn);
PGresult *jsonsql_PQexecParams(PGconn *conn, const char *command, int nParams,
                               const Oid *paramTypes, const char *const *paramValues,
                               const int *paramLengths, const int *paramFormats, int resultFormat);
int jsonsql_PQsendQuery(PGconn *conn, const char *query);
int jsonsql_PQsendQueryParams(PGconn *conn, const char *command, int nParams,
                              const Oid *paramTypes, const char *const *paramValues,
                              const int *paramLengths, const int *paramFormats, int resultFormat);
PGresult *jsonsql_PQgetResult(PGconn *conn);
int jsonsql_PQisBusy(PGconn *conn);
int jsonsql_PQconsumeInput(PGconn *conn);
int jsonsql_PQputCopyData(PGconn *conn, const char *buffer, int nbytes);
int jsonsql_PQputCopyEnd(PGconn *conn, const char *errormsg);
ExecStatusType jsonsql_PQresultStatus(const PGresult *res);
char *jsonsql_PQresultErrorMessage(const PGresult *res);
char *jsonsql_PQresultErrorField(const PGresult *res, int fieldcode);
int jsonsql_PQntuples(const PGresult *res);
int jsonsql_PQnfields(const PGresult *res);
char *jsonsql_PQfname(const PGresult *res, int field_num);
Oid jsonsql_PQftype(const PGresult *res, int field_num);
char *jsonsql_PQgetvalue(const PGresult *res, int tup_num, int field_num);
int jsonsql_PQgetlength(const PGresult *res, int tup_num, int field_num);
int jsonsql_PQgetisnull(const PGresult *res, int tup_num, int field_num);
char *jsonsql_PQcmdTuples(PGresult *res);
void jsonsql_PQclear(PGresult *res);
PGcancel *jsonsql_PQgetCancel(PGconn *conn);
void jsonsql_PQfreeCancel(PGcancel *cancel);
int jsonsql_PQcancel(PGcancel *cancel, char *errbuf, int errbufsize);
void jsonsql_PQfreemem(void *ptr);
void jsonsql_PQconninfoFree(PQconninfoOption *connOptions);
PGTransactionStatusType jsonsql_PQtransactionStatus(const PGconn *conn);
const char *jsonsql_PQparameterStatus(const PGconn *conn, const char *paramName);
int jsonsql_PQgetCopyData(PGconn *conn, char **buffer, int async);
char *jsonsql_PQcmdStatus(PGresult *res);
PQnoticeReceiver jsonsql_PQsetNoticeReceiver(PGconn *conn, PQnoticeReceiver proc, void *arg);

#endif
