// libFuzzer target for whole jsonsql command lines.
//
// Each input decodes into a command: a subcommand, its options, --where expressions from the
// grammar, values mixing the scratch tables' real columns and paths with raw bytes, and JSON or
// a shell script on standard input. The harness copies a seeded scratch database into a fresh
// directory, runs the jsonsql binary there (built with ASan and edge counters, see Fuzz/run.sh)
// and checks what every run must satisfy:
//   - no signal (a trap, a failed precondition or a sanitizer report); exit status 0, 1 or 64; no hang;
//   - on a refusal (status 1 or 64), every file in the directory is byte for byte as before:
//     the database unchanged, no journal left, no database created where there was none;
//   - a command that only reads leaves the directory as it was, even when it succeeds;
//   - after a success the database passes integrity_check and foreign_key_check.
// A violation prints the command line and aborts, so libFuzzer saves the input; run the target
// on that file to see it again. The binary's own edge counters come back through a memfd into
// libFuzzer's extra counters, so the search is guided by the code jsonsql runs.
//
// Environment: JSONSQL_FUZZ_BIN (the binary; default .build-fuzz/jsonsql-asan/debug/jsonsql),
// JSONSQL_FUZZ_VERBOSE=1 (print every command), JSONSQL_FUZZ_TIMEOUT (seconds per run, 10),
// JSONSQL_FUZZ_SKIP=id,... (known bugs to let pass, see knownBugs below; default none),
// JSONSQL_FUZZ_POSTGRES=DIR (the socket directory of a throwaway PostgreSQL server, see
// Tests/postgres-server.sh): most command lines then name a postgres:// URL of schema fz, which is
// seeded like the full SQLite database and restored before every input; a refusal must leave it
// (its tables, columns, indexes, constraints and rows) as it was, and so must a command that only reads.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define COUNTERS (1 << 18)
// libFuzzer reads these after each input, as it reads its own coverage counters.
__attribute__((section("__libfuzzer_extra_counters"), used)) uint8_t extraCounters[COUNTERS];

// MARK: - Reading choices from the input

typedef struct {
    const uint8_t *p;
    size_t n;
} Bytes;

static unsigned take(Bytes *b) {
    if (!b->n) return 0;
    b->n--;
    return *b->p++;
}

static unsigned pick(Bytes *b, unsigned n) {
    if (n <= 1) return 0;
    unsigned v = take(b);
    if (n > 256) v = v << 8 | take(b);
    return v % n;
}

static int chance(Bytes *b, unsigned percent) { return pick(b, 100) < percent; }

#define ONE_OF(b, list) ((list)[pick((b), sizeof(list) / sizeof((list)[0]))])

// MARK: - Building argument lists

#define MAX_ARGS 96
#define ARENA (1 << 19)

typedef struct {
    int argc;
    char *argv[MAX_ARGS + 1];
    size_t used, start;
    char arena[ARENA];
} Args;

static void put(Args *a, const char *text) {
    for (; *text && a->used < ARENA - MAX_ARGS - 2; text++) a->arena[a->used++] = *text;
}

static void putc1(Args *a, char c) {
    if (c && a->used < ARENA - MAX_ARGS - 2) a->arena[a->used++] = c;
}

static void putf(Args *a, const char *format, ...) {
    char text[512];
    va_list list;
    va_start(list, format);
    vsnprintf(text, sizeof text, format, list);
    va_end(list);
    put(a, text);
}

/// Ends the argument being built.
static void end(Args *a) {
    if (a->argc >= MAX_ARGS) {
        a->used = a->start;
        return;
    }
    a->arena[a->used++] = 0;
    a->argv[a->argc++] = a->arena + a->start;
    a->argv[a->argc] = NULL;
    a->start = a->used;
}

static void arg(Args *a, const char *text) {
    put(a, text);
    end(a);
}

/// Up to max raw input bytes (argv cannot hold NUL; stdin can).
static void raw(Args *a, Bytes *b, unsigned max) {
    unsigned n = pick(b, max + 1);
    for (unsigned i = 0; i < n && b->n; i++) putc1(a, (char)take(b));
}

// MARK: - Vocabulary of the scratch databases

static const char *tables[] = {"player", "team", "member", "doc", "PLAYER", "nosuch", "sqlite_master", "a b", "x\"y", "main.player", ""};
static const char *columns[] = {"id", "name", "score", "ratio", "price", "active", "born", "created", "address", "tags",
    "team", "player", "doc", "country", "rowid", "nosuch", "ID", "\"address\"", "title", "n"};
static const char *keys[] = {"country", "city", "zip", "geo", "lat", "x", "0", "a-b", "_", "\"zip.code\"", "\"a\\\"b\"",
    "\"a\\\\b\"", "\"\"", "'x'", "\"\\u00e9\"", "é", "$"};
static const char *indexes[] = {"[0]", "[1]", "[-1]", "[-0]", "[99]", "[9223372036854775807]", "[-9223372036854775808]",
    "[99999999999999999999]", "[#-1]", "[x]", "[]", "[\"k\"]", "['k']", "["};
static const char *values[] = {"42", "-1", "0", "1", "1.5", "-0", "1e3", "1e400", "-1e400", "9223372036854775807",
    "9223372036854775808", "-9223372036854775809", "0.1e-400", "007", "1.0", "12345678901234567890.5", "\"42\"", "'42'",
    "'O''Brien'", "\"a\\\"b\"", "\"\\u00e9\"", "\"\\ud800\"", "\"\\u0000\"", "DE", "FR", "Ann", "true", "false", "null",
    "TRUE", "$x", "[]", "{}", "\"[1]\"", "'{\"a\":1}'", "%", "_", "*", "é", "\"\"", "''", "nan", "inf", "2024-05-01",
    "2024-05-01 12:30:00", "2024-05-01T12:30:00Z", "'", "\"", "x y"};
static const char *types[] = {"text", "integer", "real", "numeric", "boolean", "blob", "date", "datetime", "json", "any",
    "INTEGER", "bogus", "", "int"};
static const char *indexNames[] = {"player_country", "by_score", "name_nocase", "nosuch", "sqlite_autoindex_player_1", ""};

static void path(Args *a, Bytes *b) {
    if (chance(b, 5)) {
        raw(a, b, 12);
        return;
    }
    put(a, ONE_OF(b, columns));
    unsigned segments = pick(b, 4);
    for (unsigned i = 0; i < segments; i++) {
        if (chance(b, 60)) {
            putc1(a, '.');
            put(a, ONE_OF(b, keys));
        } else {
            put(a, ONE_OF(b, indexes));
        }
    }
    if (chance(b, 4)) raw(a, b, 4);
}

static void value(Args *a, Bytes *b) {
    if (chance(b, 8))
        raw(a, b, 12);
    else
        put(a, ONE_OF(b, values));
}

static void list(Args *a, Bytes *b) {
    int square = chance(b, 70);
    putc1(a, square ? '[' : '(');
    unsigned n = chance(b, 5) ? 60 + pick(b, 200) : pick(b, 5);
    for (unsigned i = 0; i < n; i++) {
        if (i) put(a, chance(b, 80) ? ", " : ",");
        value(a, b);
    }
    if (chance(b, 95)) putc1(a, square ? ']' : ')');
}

static void space(Args *a, Bytes *b) { put(a, chance(b, 85) ? " " : chance(b, 50) ? "" : "\t "); }

static void predicate(Args *a, Bytes *b) {
    static const char *comparisons[] = {"=", "==", "!=", "<", "<=", ">", ">="};
    path(a, b);
    switch (pick(b, 10)) {
    case 0: case 1: case 2:
        space(a, b);
        put(a, ONE_OF(b, comparisons));
        space(a, b);
        value(a, b);
        break;
    case 3:
        put(a, chance(b, 70) ? " in " : " not in ");
        list(a, b);
        break;
    case 4: {
        static const char *ops[] = {" contains ", " not contains ", " contains any ", " contains all "};
        const char *op = ONE_OF(b, ops);
        put(a, op);
        if (strstr(op, "any") || strstr(op, "all")) list(a, b); else value(a, b);
        break;
    }
    case 5: {
        static const char *ops[] = {" like ", " not like ", " glob ", " not glob ", " ~ ", " LIKE "};
        put(a, ONE_OF(b, ops));
        value(a, b);
        break;
    }
    case 6: {
        static const char *ops[] = {" is null", " is not null", " exists", " not exists", " missing", " IS NULL", " is"};
        put(a, ONE_OF(b, ops));
        break;
    }
    case 7:
        space(a, b);
        raw(a, b, 8);
        space(a, b);
        value(a, b);
        break;
    default:
        put(a, "=");
        value(a, b);
    }
}

/// A --where expression from the grammar in /work/shared/design/WHERE.md, with raw bytes mixed in.
static void where(Args *a, Bytes *b, int depth) {
    switch (pick(b, depth > 4 ? 3 : 10)) {
    case 0: case 1: case 2:
        predicate(a, b);
        break;
    case 3:
        putc1(a, '(');
        where(a, b, depth + 1);
        if (chance(b, 95)) putc1(a, ')');
        break;
    case 4: case 5: {
        static const char *ops[] = {" and ", " or ", " && ", " || ", " AND ", " Or ", "&&", " and and "};
        where(a, b, depth + 1);
        put(a, ONE_OF(b, ops));
        where(a, b, depth + 1);
        break;
    }
    case 6:
        put(a, chance(b, 60) ? "not " : chance(b, 50) ? "!" : "NOT ");
        where(a, b, depth + 1);
        break;
    case 7: {
        // Deep nesting: parentheses, or a chain of not.
        static const unsigned depths[] = {8, 40, 120, 1000, 20000};
        unsigned n = ONE_OF(b, depths);
        int nots = chance(b, 30);
        for (unsigned i = 0; i < n; i++) put(a, nots ? "not " : "(");
        predicate(a, b);
        if (!nots) for (unsigned i = 0; i < n - (chance(b, 10) ? 1 : 0); i++) putc1(a, ')');
        break;
    }
    case 8:
        raw(a, b, 24);
        break;
    default:
        predicate(a, b);
        put(a, " and ");
        predicate(a, b);
    }
}

// MARK: - JSON

static void json(Args *a, Bytes *b, int depth);

static void jsonString(Args *a, Bytes *b) {
    static const char *strings[] = {"\"DE\"", "\"x\"", "\"\"", "\"a\\\"b\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\"",
        "\"\\ud800\"", "\"\\u0000\"", "\"line\\nbreak\"", "\"2024-05-01\"", "\"2024-05-01T12:30:00Z\"", "\"42\"",
        "\"[1,2]\"", "\"{\\\"a\\\":1}\"", "\"true\"", "\"é\"", "\"\\/\"", "\"\\x\"", "\"tab\there\""};
    if (chance(b, 10)) {
        putc1(a, '"');
        raw(a, b, 10);
        putc1(a, '"');
    } else {
        put(a, ONE_OF(b, strings));
    }
}

static void jsonNumber(Args *a, Bytes *b) {
    static const char *numbers[] = {"0", "1", "-1", "42", "1.5", "-0", "1e3", "1E400", "-1e400", "1e-400",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "123456789012345678901234567890", "0.1", "3.0", "01", "1.", ".5", "+1", "NaN", "Infinity", "0x10"};
    put(a, ONE_OF(b, numbers));
}

static void record(Args *a, Bytes *b, int depth) {
    putc1(a, '{');
    unsigned n = pick(b, 6);
    for (unsigned i = 0; i < n; i++) {
        if (i) putc1(a, ',');
        const char *key = ONE_OF(b, columns);
        if (chance(b, 85)) putf(a, "\"%s\"", key[0] == '"' ? "q" : key);
        else jsonString(a, b);
        putc1(a, ':');
        json(a, b, depth + 1);
    }
    if (chance(b, 97)) putc1(a, '}');
}

static void json(Args *a, Bytes *b, int depth) {
    switch (pick(b, depth > 3 ? 5 : 8)) {
    case 0: jsonNumber(a, b); break;
    case 1: jsonString(a, b); break;
    case 2: {
        static const char *words[] = {"true", "false", "null", "nul", "True"};
        put(a, ONE_OF(b, words));
        break;
    }
    case 3: raw(a, b, 8); break;
    case 4: jsonString(a, b); break;
    case 5: record(a, b, depth); break;
    case 6: {
        putc1(a, '[');
        unsigned n = pick(b, 5);
        for (unsigned i = 0; i < n; i++) {
            if (i) putc1(a, ',');
            json(a, b, depth + 1);
        }
        if (chance(b, 97)) putc1(a, ']');
        break;
    }
    default: {
        // Deep nesting.
        unsigned n = chance(b, 50) ? 200 : 3000;
        for (unsigned i = 0; i < n; i++) put(a, "{\"x\":[");
        put(a, "1");
        for (unsigned i = 0; i < n; i++) put(a, "]}");
    }
    }
}

/// Standard input for insert: the shapes RecordReader accepts, and broken ones.
static void records(Args *a, Bytes *b) {
    unsigned n = pick(b, 5);
    switch (pick(b, 8)) {
    case 0:
        putc1(a, '[');
        for (unsigned i = 0; i < n; i++) {
            if (i) putc1(a, ',');
            record(a, b, 0);
        }
        putc1(a, ']');
        break;
    case 1: case 2:
        for (unsigned i = 0; i < n + 1; i++) {
            record(a, b, 0);
            putc1(a, '\n');
        }
        break;
    case 3:
        record(a, b, 0);
        break;
    case 4:
        put(a, "\xEF\xBB\xBF");
        record(a, b, 0);
        break;
    case 5:
        for (unsigned i = 0; i < n + 1; i++) {
            put(a, "{\n  \"id\": ");
            jsonString(a, b);
            put(a, ",\n  \"name\": ");
            json(a, b, 1);
            put(a, "\n}\n");
        }
        break;
    case 6:
        json(a, b, 0);
        break;
    default:
        raw(a, b, 64);
    }
}

// MARK: - Command options

static void columnSpec(Args *a, Bytes *b) {
    static const char *names[] = {"id", "name", "score", "extra", "doc", "n", "rowid", "a b", "select", "x\"y", "", "ID",
        "address", "tags", "_rowid_", "oid"};
    static const char *modifiers[] = {"pk", "notnull", "unique", "default=1", "default=now", "default=x", "default=",
        "default='a'", "default=null", "default=1e400", "check=score > 0", "check=(", "check=1); DROP TABLE player; --",
        "check=random()", "collate=nocase", "collate=rtrim", "collate=binary", "collate=x", "references=team",
        "references=team.id", "references=player.id", "references=nosuch", "references=team.nosuch", "on-delete=cascade",
        "on-delete=restrict", "on-delete=set-null", "on-delete=set-default", "on-delete=x", "generated=address.country",
        "generated=doc.address.country", "generated=tags[0]", "generated=nosuch.x", "generated=", "bogus", ""};
    if (chance(b, 6)) {
        raw(a, b, 16);
        return;
    }
    put(a, ONE_OF(b, names));
    putc1(a, ':');
    put(a, ONE_OF(b, types));
    unsigned n = pick(b, 4);
    for (unsigned i = 0; i < n; i++) {
        putc1(a, ':');
        if (chance(b, 5)) raw(a, b, 8); else put(a, ONE_OF(b, modifiers));
    }
}

// MARK: - PostgreSQL

static PGconn *pg;                // the harness's own session; NULL without JSONSQL_FUZZ_POSTGRES
static char pgDirectory[PATH_MAX];
static char pgHost[PATH_MAX * 3]; // the socket directory, percent-encoded for a URL
static char pgURL[PATH_MAX * 3 + 128];
static char *pgSeedSQL;           // recreates schema fz as the seed commands left it

static void sql(Args *a, Bytes *b) {
    static const char *statements[] = {"SELECT * FROM player", "SELECT count(*) FROM player WHERE score > :min",
        "SELECT name, address ->> '$.city' AS city FROM player", "SELECT :a, $b, @c, ?1",
        "INSERT INTO team(id, name) VALUES ('t9', 'Green')", "INSERT INTO team(id) VALUES ('t1')",
        "UPDATE player SET score = score + 1", "UPDATE player SET address = 'not json'", "DELETE FROM team",
        "DELETE FROM member", "DROP TABLE member", "CREATE INDEX i ON player(score)", "CREATE TABLE z(a)",
        "PRAGMA foreign_keys = OFF", "PRAGMA journal_mode = WAL", "PRAGMA user_version = 7", "PRAGMA integrity_check",
        "BEGIN", "COMMIT", "; BEGIN", "ROLLBACK", "SAVEPOINT s", "RELEASE s", "END", "ATTACH 'x.db' AS x", "DETACH x",
        "VACUUM", "VACUUM INTO 'copy.db'", "SELECT 1; SELECT 2", "SELECT 1;", ";", "", "  ", "-- comment",
        "/* c */ SELECT 1", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000) SELECT count(*) FROM c",
        "SELECT json('{\"a\":1}'), json_extract('[1]', '$[0]'), x'00ff', 1e400, -0.0, 9223372036854775807 + 1",
        "SELECT zeroblob(10), randomblob(4), char(0), 'a' || char(10) || 'b'", "SELECT * FROM nosuch",
        "SELECT load_extension('x')", "REINDEX", "ANALYZE", "EXPLAIN SELECT 1", "EXPLAIN QUERY PLAN SELECT * FROM player",
        "INSERT INTO player(id, name) VALUES ('z', 'Z') RETURNING *", "REPLACE INTO team VALUES ('t1', 'Re')",
        "UPDATE member SET team = 'nosuch'", "ALTER TABLE player ADD COLUMN q"};
    // PostgreSQL's own: dollar quotes, BEGIN ATOMIC bodies, COPY, cursors, session settings, odd types.
    static const char *pgStatements[] = {"CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END",
        "CREATE FUNCTION g() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END; SELECT g()",
        "DO $$ BEGIN PERFORM 1; END $$", "DO $x$ BEGIN RAISE NOTICE 'n;%', 1; END $x$", "DO $$ BEGIN RAISE EXCEPTION 'boom'; END $$",
        "SELECT $1", "SELECT $tag$a;b$tag$, E'a\\nb;', U&'\\0041', 'it''s'", "SELECT 1 /* ; */ ; -- ;",
        "COPY player TO STDOUT", "COPY team FROM STDIN", "COPY (SELECT 1) TO STDOUT WITH (FORMAT csv)", "LISTEN x",
        "NOTIFY x, 'y'", "SELECT pg_sleep(0.01)", "SELECT 1/0", "SELECT repeat('x', 100000)", "SELECT 1e400::numeric",
        "SELECT 'NaN'::float8, 'Infinity'::numeric, '-0'::float8, 1e308::float8 * 10",
        "SELECT now(), interval '1 day', '2024-01-01'::date, 'infinity'::timestamptz, '-infinity'::date, time '24:00'",
        "SELECT array[1,2], '{\"a\":1}'::jsonb, '\\x00ff'::bytea, point(1,2), 'a'::\"char\", 1::money, '1.5'::numeric(3,1)",
        "SELECT ROW(1,'a'), '(1,2)'::int4range, 'a b'::tsvector, gen_random_uuid(), inet '::1', B'101'",
        "SELECT '\"\\u0000\"'::json, '{\"a\":1e400}'::json, '[9223372036854775808]'::jsonb", "SELECT chr(0)",
        "CREATE TABLE z(a int)", "CREATE TABLE \"Player\"(a int)", "CREATE VIEW v AS SELECT * FROM player",
        "CREATE TEMP TABLE tt(a int)", "CREATE TYPE mood AS ENUM ('a', 'b')", "CREATE DOMAIN pos AS integer CHECK (VALUE > 0)",
        "CREATE TABLE e(m int, d pos)", "CREATE TABLE w(a varchar(3), b numeric(5,2), c int[], d timestamp, e bit(3), f xml)",
        "CREATE INDEX ON player USING gin (address)", "CREATE UNIQUE INDEX u ON team (lower(name))",
        "CREATE TRIGGER t BEFORE INSERT ON team FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()",
        "SET standard_conforming_strings = off", "SET search_path = nosuch", "SET search_path = fz, public",
        "SET DateStyle = German", "SET TIME ZONE 'America/St_Johns'", "SET statement_timeout = 1", "RESET ALL",
        "BEGIN ISOLATION LEVEL SERIALIZABLE", "START TRANSACTION READ ONLY", "COMMIT AND CHAIN", "ROLLBACK TO s",
        "PREPARE p AS SELECT 1", "EXECUTE p", "DEALLOCATE ALL", "DECLARE c CURSOR WITH HOLD FOR SELECT 1", "FETCH c",
        "CLOSE ALL", "DISCARD ALL", "SHOW ALL", "TABLE player", "VALUES (1, 'a'), (2, NULL)",
        "SELECT x FROM generate_series(1, 100000) x", "ALTER TABLE player ADD COLUMN z int", "ALTER TABLE player DROP COLUMN score",
        "ALTER TABLE player ALTER COLUMN score TYPE text", "ALTER TABLE team RENAME TO team2", "DROP TABLE player CASCADE",
        "TRUNCATE team CASCADE", "LOCK TABLE team", "SELECT pg_advisory_lock(1)", "SELECT pg_terminate_backend(pg_backend_pid())",
        "SELECT * FROM player FOR UPDATE", "INSERT INTO team VALUES ('t1', 'x') ON CONFLICT (id) DO UPDATE SET name = 'y'",
        "UPDATE player SET address = '\"s\"'", "UPDATE player SET tags = 'null'::jsonb",
        "INSERT INTO player(id, name, address) VALUES ('q', 'Q', '{\"country\":1e400}')", "\\d", "\\dt player", "\\q"};
    if (chance(b, 8)) raw(a, b, 24);
    else if (pg && chance(b, 60)) put(a, ONE_OF(b, pgStatements));
    else put(a, ONE_OF(b, statements));
    if (chance(b, 10)) raw(a, b, 8);
}

static void timeout(Args *a, Bytes *b) {
    static const char *seconds[] = {"0", "0.001", "1", "60", "-1", "1e10", "inf", "nan", "-inf", "abc", "1e-300",
        "2147483.647", "2147483.648", "9e18", "", "0x10"};
    arg(a, "--timeout");
    arg(a, ONE_OF(b, seconds));
}

static void format(Args *a, Bytes *b) {
    static const char *formats[] = {"json", "jsonl", "table", "csv", "JSON", "bogus", ""};
    arg(a, chance(b, 50) ? "--format" : "-f");
    arg(a, ONE_OF(b, formats));
}

static void wherePair(Args *a, Bytes *b) {
    arg(a, "--where");
    where(a, b, 0);
    end(a);
}

static void table(Args *a, Bytes *b) {
    if (chance(b, 5)) raw(a, b, 8); else put(a, ONE_OF(b, tables));
    end(a);
}

static void paths(Args *a, Bytes *b) {
    unsigned n = 1 + pick(b, 3);
    for (unsigned i = 0; i < n; i++) {
        if (i) putc1(a, ',');
        path(a, b);
    }
    end(a);
}

enum { CREATE, INSERT, QUERY, UPDATE, DELETE, INDEX, TABLES, SCHEMA, INDEXES, ALTER, RENAME, DROPTABLE, DROPINDEX,
    COPY, DESCRIBE, SHELL, SUBCOMMANDS };
static const char *subcommands[] = {"create-table", "insert", "query", "update", "delete", "index", "tables", "schema",
    "indexes", "alter", "rename-table", "drop-table", "drop-index", "copy", "describe", "shell"};

// MARK: - PostgreSQL

/// A database argument naming the server: mostly schema fz's URL, sometimes another form of it
/// or one that cannot work (no such schema, database or port; odd session settings).
static void pgDatabase(Args *a, Bytes *b) {
    static const char *tails[] = {"", "", "", "", "", "", "&application_name=fuzz", "&connect_timeout=1",
        "%20-cstandard_conforming_strings%3Doff", "%20-cDateStyle%3DSQL%2CDMY%20-cextra_float_digits%3D0%20-cbytea_output%3Descape",
        "%20-ctimezone%3DAsia%2FKolkata%20-cIntervalStyle%3Dsql_standard", ",public", "%20-cstatement_timeout%3D1",
        "%20-clock_timeout%3D1", "%20-cdefault_transaction_read_only%3Don"};
    switch (pick(b, 16)) {
    case 0: putf(a, "postgresql://postgres@%s/postgres?options=-csearch_path%%3Dfz", pgHost); break;
    case 1: putf(a, "postgres://postgres:se%%3Fcr%%40t@%s/postgres?options=-csearch_path%%3Dfz", pgHost); break;
    case 2: putf(a, "postgres://postgres@%s/postgres", pgHost); break;
    case 3: putf(a, "postgres://postgres@%s/postgres?options=-csearch_path%%3Dnosuch", pgHost); break;
    case 4: putf(a, "postgres://postgres@%s/nosuchdb", pgHost); break;
    case 5: putf(a, "postgres://postgres@%s:1/postgres", pgHost); break;
    case 6: putf(a, "host=%s user=postgres dbname=postgres options=-csearch_path=fz", pgDirectory); break;
    case 7:
        put(a, pgURL);
        raw(a, b, 8);
        break;
    default:
        put(a, pgURL);
        put(a, ONE_OF(b, tails));
    }
    end(a);
}

/// What the harness needs to know about a generated command to judge its run.
typedef struct {
    int sub;
    int readOnly;   // must leave the directory as it was even on success
    int atomic;     // a refusal must leave the directory as it was (false for multi-line shell scripts)
    int usesStdin;  // a script or JSON on standard input
} Shape;

/// The options of one subcommand, after `jsonsql SUB DB`; for the shell, `inShell` leaves out
/// what a shell line cannot do.
static void options(Args *a, Bytes *b, int sub, Shape *shape, int inShell) {
    int dryRun = 0, sqlGiven = 0, help = 0;
    // Positionals first, as the README writes them; options can follow in any order.
    switch (sub) {
    case CREATE:
        table(a, b);
        for (unsigned n = pick(b, 5), i = 0; i < n; i++) {
            columnSpec(a, b);
            end(a);
        }
        break;
    case INSERT:
        if (chance(b, 80)) table(a, b);
        if (chance(b, 25)) {
            static const char *files[] = {"in.json", "-", "nosuch.json", ".", "db.sqlite", "dir/x.ndjson"};
            arg(a, ONE_OF(b, files));
        }
        break;
    case QUERY: case UPDATE: case DELETE: case SCHEMA: case INDEXES: case ALTER:
        if (chance(b, 75)) table(a, b);
        break;
    case INDEX:
        if (chance(b, 70)) table(a, b);
        for (unsigned n = 1 + pick(b, 3), i = 0; i < n; i++) {
            path(a, b);
            end(a);
        }
        break;
    case RENAME:
        table(a, b);
        table(a, b);
        break;
    case DROPTABLE:
        table(a, b);
        break;
    case DROPINDEX:
        arg(a, ONE_OF(b, indexNames));
        break;
    case COPY: {
        // After SRC: DST, then the tables.
        static const char *targets[] = {"copy.sqlite", "copy.sqlite", "db.sqlite", "nosuch/copy.sqlite", "in.json", "-"};
        if (pg && chance(b, 50)) pgDatabase(a, b); else arg(a, ONE_OF(b, targets));
        for (unsigned n = pick(b, 3), i = 0; i < n; i++) table(a, b);
        break;
    }
    case DESCRIBE:
        if (chance(b, 75)) table(a, b);
        break;
    }
    unsigned count = pick(b, 6);
    for (unsigned i = 0; i < count; i++) {
        unsigned k = pick(b, 20);
        if (k == 0) {
            timeout(a, b);
            continue;
        }
        if (k == 1) {
            static const char *odd[] = {"--help", "-h", "--version", "--bogus", "--", "-", "--where", "--all"};
            const char *o = ONE_OF(b, odd);
            if (!strcmp(o, "--help") || !strcmp(o, "-h") || !strcmp(o, "--version")) help = 1;
            arg(a, o);
            continue;
        }
        if (k == 2) {
            raw(a, b, 16);
            end(a);
            continue;
        }
        switch (sub) {
        case CREATE:
            switch (k % 5) {
            case 0: arg(a, "--pk"); paths(a, b); break;
            case 1: arg(a, "--unique"); paths(a, b); break;
            case 2: arg(a, "--without-rowid"); break;
            case 3: arg(a, "--strict"); break;
            default: arg(a, "--if-not-exists");
            }
            break;
        case INSERT: {
            static const char *flags[] = {"--alter", "--replace", "--ignore", "--upsert", "-q", "--quiet"};
            if (k % 4 == 0) {
                arg(a, "--pk");
                paths(a, b);
            } else {
                arg(a, ONE_OF(b, flags));
            }
            break;
        }
        case QUERY:
            switch (k % 12) {
            case 0: case 1: case 2: wherePair(a, b); break;
            case 3: arg(a, "--select"); paths(a, b); break;
            case 4:
                arg(a, "--order-by");
                path(a, b);
                if (chance(b, 50)) put(a, chance(b, 50) ? ":desc" : ":asc");
                end(a);
                break;
            case 5: {
                static const char *numbers[] = {"0", "1", "2", "-1", "99999999999999999999", "x", "9223372036854775807"};
                arg(a, chance(b, 50) ? "--limit" : "--offset");
                arg(a, ONE_OF(b, numbers));
                break;
            }
            case 6: format(a, b); break;
            case 7: {
                static const char *cols[] = {"auto", "AUTO", "address", "name", "address,tags", "nosuch", ""};
                arg(a, "--json-cols");
                arg(a, ONE_OF(b, cols));
                break;
            }
            case 8: {
                static const char *styles[] = {"stored", "iso8601", "x"};
                arg(a, "--dates");
                arg(a, ONE_OF(b, styles));
                break;
            }
            case 9: arg(a, "--explain"); break;
            case 10:
                arg(a, "--sql");
                sql(a, b);
                end(a);
                sqlGiven = 1;
                break;
            default:
                arg(a, "--param");
                put(a, chance(b, 50) ? "min=" : chance(b, 50) ? ":a=" : "");
                value(a, b);
                end(a);
            }
            break;
        case UPDATE:
            switch (k % 8) {
            case 0: case 1: wherePair(a, b); break;
            case 2: arg(a, "--all"); break;
            case 3: case 4:
                arg(a, "--set");
                path(a, b);
                putc1(a, '=');
                if (chance(b, 50)) value(a, b); else json(a, b, 1);
                end(a);
                break;
            case 5: arg(a, "--json"); break;
            case 6:
                arg(a, "--patch");
                if (chance(b, 60)) {
                    put(a, ONE_OF(b, columns));
                    putc1(a, '=');
                }
                json(a, b, 0);
                end(a);
                break;
            default:
                if (chance(b, 50)) {
                    arg(a, "--remove");
                    path(a, b);
                    end(a);
                } else {
                    arg(a, "--dry-run");
                    dryRun = 1;
                }
            }
            break;
        case DELETE:
            switch (k % 3) {
            case 0: wherePair(a, b); break;
            case 1: arg(a, "--all"); break;
            default: arg(a, "--dry-run"); dryRun = 1;
            }
            break;
        case INDEX:
            switch (k % 5) {
            case 0: arg(a, "--name"); if (chance(b, 80)) arg(a, ONE_OF(b, indexNames)); else { raw(a, b, 12); end(a); } break;
            case 1: arg(a, "--unique"); break;
            case 2: wherePair(a, b); break;
            case 3: arg(a, "--nocase"); break;
            default: arg(a, "--if-not-exists");
            }
            break;
        case TABLES: case SCHEMA: case INDEXES:
            format(a, b);
            break;
        case ALTER:
            switch (k % 4) {
            case 0: arg(a, "--add"); columnSpec(a, b); end(a); break;
            case 1:
                arg(a, "--rename");
                put(a, ONE_OF(b, columns));
                putc1(a, '=');
                if (chance(b, 80)) put(a, ONE_OF(b, columns)); else raw(a, b, 8);
                end(a);
                break;
            case 2: arg(a, "--drop"); arg(a, ONE_OF(b, columns)); break;
            default:
                arg(a, "--type");
                put(a, ONE_OF(b, columns));
                if (chance(b, 95)) putc1(a, ':');
                put(a, ONE_OF(b, types));
                end(a);
            }
            break;
        case RENAME: case DROPTABLE: case DROPINDEX:
            arg(a, sub == RENAME ? "--bogus" : "--if-exists");
            break;
        case COPY:
            if (k % 2) arg(a, "--no-indexes"); else arg(a, chance(b, 50) ? "-q" : "--quiet");
            break;
        case DESCRIBE:
            switch (k % 3) {
            case 0: {
                static const char *numbers[] = {"0", "1", "2", "100", "-1", "x", "99999999999999999999"};
                arg(a, "--sample");
                arg(a, ONE_OF(b, numbers));
                break;
            }
            case 1: arg(a, "--swift"); break;
            default: format(a, b);
            }
            break;
        case SHELL:
            if (inShell) break;
            if (k % 2) arg(a, "--keep-going"); else format(a, b);
            break;
        }
    }
    if (shape) {
        shape->readOnly = help || dryRun || sub == TABLES || sub == SCHEMA || sub == INDEXES || sub == DESCRIBE
            || (sub == QUERY && !sqlGiven);
        if (sub == INSERT) shape->usesStdin = 1;
    }
}

// MARK: - Shell scripts

/// One word as `sh` would read it back (single quotes; a newline would end the line).
static void shellWord(Args *a, const char *word) {
    putc1(a, '\'');
    for (const char *c = word; *c; c++) {
        if (*c == '\'') put(a, "'\\''");
        else if (*c == '\n' || *c == '\r') putc1(a, ' ');
        else putc1(a, *c);
    }
    putc1(a, '\'');
}

static Args scratch;

/// A script for `jsonsql shell`: subcommands, SQL and dot-commands, one or a few lines.
static void script(Args *a, Bytes *b, Shape *shape) {
    unsigned lines = chance(b, 50) ? 1 : 2 + pick(b, 4);
    shape->atomic = lines == 1;
    for (unsigned line = 0; line < lines; line++) {
        switch (pick(b, 10)) {
        case 0: case 1: case 2: case 3: {
            int sub = pick(b, SUBCOMMANDS);
            // The shell's own line parser is the code under test: words go through it quoted.
            scratch.argc = 0;
            scratch.used = scratch.start = 0;
            Shape inner = {0};
            options(&scratch, b, sub, &inner, 1);
            put(a, subcommands[sub]);
            for (int i = 0; i < scratch.argc; i++) {
                putc1(a, ' ');
                if (chance(b, 90)) shellWord(a, scratch.argv[i]); else put(a, scratch.argv[i]);
            }
            if (chance(b, 10)) putc1(a, ';');
            break;
        }
        case 4: case 5: {
            sql(a, b);
            if (chance(b, 85)) putc1(a, ';');
            if (chance(b, 15)) shape->atomic = 0;
            break;
        }
        case 6: case 7: {
            static const char *dots[] = {".tables", ".schema", ".schema player", ".schema nosuch", ".indexes", ".indexes player",
                ".format json", ".format csv", ".format x", ".timer on", ".explain on", ".explain x", ".read script.jsonsql",
                ".read nosuch", ".read in.json", ".read", ".help", ".quit", ".exit", ".q", ".bogus", ".tables x",
                ".format;", ".read '"};
            const char *d = ONE_OF(b, dots);
            put(a, d);
            if (!strncmp(d, ".read", 5)) shape->atomic = 0;
            break;
        }
        case 8: {
            static const char *others[] = {"# comment", "-- comment", "", "   ", "shell", "help", "help query",
                "query --help", "tables;", "insert into team(id) values ('q')", "select", "'", "\"", "\\"};
            put(a, ONE_OF(b, others));
            break;
        }
        default:
            raw(a, b, 40);
        }
        putc1(a, '\n');
    }
}

// MARK: - The scratch directory and running jsonsql

static char binary[PATH_MAX];
static char work[PATH_MAX];
static int coverageFd = -1;
static uint8_t *childCounters;
static int verbose;
static double timeoutSeconds = 10;
static const char *skipList = "";

typedef struct {
    uint8_t *bytes;
    size_t size;
    const char *name;
} Seed;

enum { FULL, SINGLE, MISSING, EMPTY, GARBAGE, POSTGRES, SEEDS };
static Seed seeds[SEEDS];

static void die(const char *format, ...) {
    va_list list;
    va_start(list, format);
    fprintf(stderr, "command-line fuzzer: ");
    vfprintf(stderr, format, list);
    fprintf(stderr, "\n");
    va_end(list);
    exit(2);
}

static uint8_t *readFile(const char *path, size_t *size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    fstat(fd, &st);
    uint8_t *bytes = malloc(st.st_size + 1);
    size_t done = 0;
    while (done < (size_t)st.st_size) {
        ssize_t n = read(fd, bytes + done, st.st_size - done);
        if (n <= 0) break;
        done += n;
    }
    close(fd);
    *size = done;
    return bytes;
}

static void writeFile(const char *path, const void *bytes, size_t size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("cannot write %s: %s", path, strerror(errno));
    if (size && write(fd, bytes, size) != (ssize_t)size) die("cannot write %s", path);
    close(fd);
}

typedef struct {
    int status;      // exit status, or -1
    int signal;      // terminating signal, or 0
    int timedOut;
    char err[16384]; // the start of standard error
} Outcome;

static char *environment[] = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "TZ=UTC", "CI=1", "SWIFT_BACKTRACE=enable=no",
    "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:handle_abort=0:detect_stack_use_after_return=0",
    "JSONSQL_HISTORY=/dev/null", "JSONSQL_FUZZ_COVERAGE_FD=100", NULL, NULL};

/// Runs argv in dir with stdin from a file; standard error is kept for the checks.
static void run(char **argv, const char *dir, const char *stdinPath, Outcome *o) {
    char outPath[PATH_MAX + 32], errPath[PATH_MAX + 32], home[PATH_MAX + 8];
    snprintf(outPath, sizeof outPath, "%s/stdout", work);
    snprintf(errPath, sizeof errPath, "%s/stderr", work);
    snprintf(home, sizeof home, "HOME=%s", dir);
    environment[8] = home;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, dir);
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (coverageFd >= 0) posix_spawn_file_actions_adddup2(&actions, coverageFd, 100);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // libFuzzer's handlers must not reach the child; it starts with default signal actions.
    sigset_t all;
    sigfillset(&all);
    posix_spawnattr_setsigdefault(&attributes, &all);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    if (childCounters) memset(childCounters, 0, COUNTERS);
    int error = posix_spawn(&pid, argv[0], &actions, &attributes, argv, environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error) die("cannot run %s: %s", argv[0], strerror(error));
    memset(o, 0, sizeof *o);
    o->status = -1;
    int status = 0;
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd >= 0) {
        struct pollfd p = {pidfd, POLLIN, 0};
        int ready;
        do ready = poll(&p, 1, (int)(timeoutSeconds * 1000)); while (ready < 0 && errno == EINTR);
        if (ready == 0) {
            o->timedOut = 1;
            kill(-pid, SIGKILL);
        }
        close(pidfd);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!o->timedOut) {
        if (WIFEXITED(status)) o->status = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) o->signal = WTERMSIG(status);
    }
    int fd = open(errPath, O_RDONLY);
    if (fd >= 0) {
        ssize_t n = read(fd, o->err, sizeof o->err - 1);
        o->err[n > 0 ? n : 0] = 0;
        close(fd);
    }
    if (childCounters)
        for (size_t i = 0; i < COUNTERS; i++)
            if (childCounters[i]) extraCounters[i] = childCounters[i];
}

static int removeEntry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void removeTree(const char *path) { nftw(path, removeEntry, 16, FTW_DEPTH | FTW_PHYS); }

static uint64_t fnv(const uint8_t *bytes, size_t size, uint64_t h) {
    for (size_t i = 0; i < size; i++) h = (h ^ bytes[i]) * 1099511628211ull;
    return h;
}

/// The directory's files and a hash of each one's bytes, as a text to compare and print.
static void snapshot(const char *dir, char *out, size_t capacity) {
    struct dirent **entries;
    int n = scandir(dir, &entries, NULL, alphasort);
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        const char *name = entries[i]->d_name;
        if (strcmp(name, ".") && strcmp(name, "..")) {
            char path[PATH_MAX * 2];
            snprintf(path, sizeof path, "%s/%s", dir, name);
            struct stat st;
            char line[PATH_MAX + 64];
            if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                size_t size;
                uint8_t *bytes = readFile(path, &size);
                snprintf(line, sizeof line, "%s(%zu bytes, %016llx) ", name, size,
                    (unsigned long long)fnv(bytes, bytes ? size : 0, 14695981039346656037ull));
                free(bytes);
            } else {
                snprintf(line, sizeof line, "%s(%s) ", name, S_ISDIR(st.st_mode) ? "dir" : "other");
            }
            if (used + strlen(line) < capacity) {
                strcpy(out + used, line);
                used += strlen(line);
            }
        }
        free(entries[i]);
    }
    if (n >= 0) free(entries);
}

/// integrity_check and foreign_key_check on a database a command succeeded on; NULL when fine.
static const char *checkDatabase(const char *path, char *message, size_t capacity) {
    size_t size;
    uint8_t *bytes = readFile(path, &size);
    int isDatabase = bytes && size >= 16 && !memcmp(bytes, "SQLite format 3", 16);
    free(bytes);
    if (!isDatabase) return NULL;
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(message, capacity, "cannot open the database after a success: %s", sqlite3_errmsg(db));
        sqlite3_close(db);
        return message;
    }
    const char *result = NULL;
    static const char *checks[] = {"PRAGMA integrity_check", "PRAGMA foreign_key_check"};
    for (int c = 0; c < 2 && !result; c++) {
        sqlite3_stmt *statement;
        if (sqlite3_prepare_v2(db, checks[c], -1, &statement, NULL) != SQLITE_OK) continue;
        int step = sqlite3_step(statement);
        if (step == SQLITE_ROW) {
            const char *first = (const char *)sqlite3_column_text(statement, 0);
            if (c == 1 || !first || strcmp(first, "ok")) {
                snprintf(message, capacity, "%s after a success: %s%s%s", checks[c], first ? first : "(null)",
                    c == 1 ? " row " : "", c == 1 ? (const char *)sqlite3_column_text(statement, 1) ?: "" : "");
                result = message;
            }
        }
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return result;
}

/// Prints bytes so that a shell reads them back: 'text' with ' escaped, $'...' for the rest.
static void printQuoted(FILE *f, const char *text, size_t size) {
    int plain = 1;
    for (size_t i = 0; i < size; i++)
        if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] == 0x7f || (unsigned char)text[i] >= 0x80) plain = 0;
    if (plain) {
        fputc('\'', f);
        for (size_t i = 0; i < size; i++) {
            if (text[i] == '\'') fputs("'\\''", f); else fputc(text[i], f);
        }
        fputc('\'', f);
        return;
    }
    fputs("$'", f);
    for (size_t i = 0; i < size; i++) {
        unsigned char c = text[i];
        if (c == '\'' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\x%02x", c);
        else fputc(c, f);
    }
    fputc('\'', f);
}

static void printCommand(FILE *f, Args *argv, int seed, const char *input, size_t inputSize) {
    fprintf(f, "  database: %s\n  command: jsonsql", seeds[seed].name);
    for (int i = 1; i < argv->argc; i++) {
        fputc(' ', f);
        printQuoted(f, argv->argv[i], strlen(argv->argv[i]));
    }
    fputc('\n', f);
    if (inputSize) {
        fprintf(f, "  stdin (%zu bytes): ", inputSize);
        printQuoted(f, input, inputSize > 2000 ? 2000 : inputSize);
        fprintf(f, "%s\n", inputSize > 2000 ? " ..." : "");
    }
}

// MARK: - Known bugs that a run may be told to let pass

static int maxNesting(Args *argv) {
    int deepest = 0;
    for (int i = 0; i < argv->argc; i++) {
        int depth = 0;
        for (const char *c = argv->argv[i]; *c; c++) {
            if (*c == '(' || *c == '[') depth++;
            if (depth > deepest) deepest = depth;
        }
    }
    return deepest;
}

static int inSkipList(const char *id) {
    size_t n = strlen(id);
    for (const char *s = skipList; (s = strstr(s, id)); s += n)
        if ((s == skipList || s[-1] == ',') && (s[n] == 0 || s[n] == ',')) return 1;
    return 0;
}

/// The known bug a violation matches, if JSONSQL_FUZZ_SKIP names it.
static const char *knownBug(Args *argv, Outcome *o, int sub, int dbExisted, int dbExists, const char *input) {
    if (inSkipList("sql-transaction") && strstr(o->err, "transaction has been left opened")) return "sql-transaction";
    if (inSkipList("timeout-nonfinite") && strstr(o->err, "Double value cannot be converted to Int32"))
        return "timeout-nonfinite";
    if (inSkipList("deep-nesting") && (maxNesting(argv) >= 40 || (input && strstr(input, "[{\"x\":[{\"x\":[{\"x\":[")))
        && (strstr(o->err, "stack-overflow") || o->signal == SIGSEGV))
        return "deep-nesting";
    if (inSkipList("insert-deletes-db") && sub == INSERT && dbExisted && !dbExists) return "insert-deletes-db";
    // An array index of -9223372036854775808 negated (index, update on PostgreSQL).
    if (inSkipList("min-array-index") && o->signal == SIGILL) {
        for (int i = 0; i < argv->argc; i++)
            if (strstr(argv->argv[i], "-9223372036854775808")) return "min-array-index";
        if (input && strstr(input, "-9223372036854775808")) return "min-array-index";
    }
    return NULL;
}

// MARK: - The PostgreSQL schema

/// Runs SQL on the harness's session, reconnecting once when the session was lost; NULL on
/// success, else the server's message. With `text`, the first row's first value is kept.
static const char *pgRun(const char *sql, char **text) {
    static char message[1024];
    for (int attempt = 0; attempt < 2; attempt++) {
        if (PQstatus(pg) != CONNECTION_OK) PQreset(pg);
        PGresult *result = PQexec(pg, sql);
        ExecStatusType status = PQresultStatus(result);
        if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
            if (text) *text = strdup(PQntuples(result) && !PQgetisnull(result, 0, 0) ? PQgetvalue(result, 0, 0) : "");
            PQclear(result);
            return NULL;
        }
        snprintf(message, sizeof message, "%s", PQerrorMessage(pg));
        PQclear(result);
        if (PQstatus(pg) == CONNECTION_OK) break;
    }
    return message;
}

/// Puts schema fz back as the seed left it; ends sessions a killed jsonsql left running first.
static void pgReset(void) {
    const char *failed = pgRun("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                               "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'", NULL);
    if (!failed) failed = pgRun("SET client_min_messages = warning; DROP SCHEMA IF EXISTS fz CASCADE; "
                                "DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public", NULL);
    if (!failed) failed = pgRun(pgSeedSQL, NULL);
    if (failed) die("cannot restore schema fz on the PostgreSQL server: %s", failed);
}

/// The tables, columns, indexes, constraints, triggers, comments and rows of schemas fz and
/// public, as a text to compare (sequences' positions are left out: a refused insert may take numbers).
static const char pgStateFunction[] =
    "CREATE SCHEMA IF NOT EXISTS fuzzcheck;"
    "CREATE OR REPLACE FUNCTION fuzzcheck.state() RETURNS text LANGUAGE plpgsql AS $f$"
    "DECLARE r record; h text; result text := ''; BEGIN"
    "  FOR r IN SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    "           WHERE n.nspname IN ('fz', 'public') AND c.relkind IN ('r', 'p', 'm') ORDER BY n.nspname COLLATE \"C\", c.relname COLLATE \"C\" LOOP"
    "    EXECUTE pg_catalog.format('SELECT pg_catalog.md5(coalesce(pg_catalog.string_agg(t::text, E''\\n'' ORDER BY t::text COLLATE \"C\"), ''''))"
    "                               FROM %I.%I t', r.nspname, r.relname) INTO h;"
    "    result := result || r.nspname || '.' || r.relname || ' rows ' || h || E'\\n';"
    "  END LOOP;"
    "  RETURN result || coalesce((SELECT pg_catalog.string_agg(x, E'\\n' ORDER BY x COLLATE \"C\") FROM ("
    "    SELECT n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || coalesce((SELECT pg_catalog.string_agg("
    "             a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END"
    "             || coalesce(' default ' || pg_catalog.pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum)"
    "           FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
    "           WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')"
    "           || CASE WHEN c.relkind = 'i' THEN ' ' || pg_catalog.pg_get_indexdef(c.oid)"
    "                   WHEN c.relkind = 'v' THEN ' ' || pg_catalog.pg_get_viewdef(c.oid) ELSE '' END AS x"
    "    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('fz', 'public')"
    "    UNION ALL SELECT 'constraint ' || k.conname || ' ' || pg_catalog.pg_get_constraintdef(k.oid) FROM pg_catalog.pg_constraint k"
    "      JOIN pg_catalog.pg_namespace n ON n.oid = k.connamespace WHERE n.nspname IN ('fz', 'public')"
    "    UNION ALL SELECT 'trigger ' || t.tgname || ' ' || pg_catalog.pg_get_triggerdef(t.oid) FROM pg_catalog.pg_trigger t"
    "      JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    "      WHERE n.nspname IN ('fz', 'public') AND NOT t.tgisinternal"
    "    UNION ALL SELECT 'comment ' || c.relname || ' ' || d.objsubid || ' ' || d.description FROM pg_catalog.pg_description d"
    "      JOIN pg_catalog.pg_class c ON c.oid = d.objoid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    "      WHERE n.nspname IN ('fz', 'public')"
    "    UNION ALL SELECT 'schema ' || nspname FROM pg_catalog.pg_namespace WHERE nspname !~ '^pg_(toast_)?temp_') s), '');"
    "END $f$";

/// Appends a hash of the server's state to a directory snapshot.
static void pgSnapshot(char *out, size_t capacity) {
    char *state = NULL;
    const char *failed = pgRun("SELECT fuzzcheck.state()", &state);
    if (failed) die("cannot read the state of schema fz: %s", failed);
    size_t used = strlen(out);
    snprintf(out + used, capacity - used, "| postgres %016llx",
        (unsigned long long)fnv((const uint8_t *)state, strlen(state), 14695981039346656037ull));
    free(state);
}

/// Connects to the server whose socket is in `directory` and empties schema fz for the seed.
static void pgInitialize(const char *directory) {
    if (!realpath(directory, pgDirectory)) die("no PostgreSQL socket directory %s", directory);
    size_t used = 0;
    for (const char *c = pgDirectory; *c && used < sizeof pgHost - 4; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-._~", *c))
            pgHost[used++] = *c;
        else
            used += snprintf(pgHost + used, 4, "%%%02X", (unsigned char)*c);
    }
    snprintf(pgURL, sizeof pgURL, "postgres://postgres@%s/postgres?options=-csearch_path%%3Dfz", pgHost);
    const char *keys[] = {"host", "user", "dbname", NULL}, *values[] = {pgDirectory, "postgres", "postgres", NULL};
    pg = PQconnectdbParams(keys, values, 0);
    if (PQstatus(pg) != CONNECTION_OK) die("cannot connect to the PostgreSQL server in %s: %s", pgDirectory, PQerrorMessage(pg));
    const char *failed = pgRun("SET client_min_messages = warning; DROP SCHEMA IF EXISTS fz CASCADE; CREATE SCHEMA fz", NULL);
    if (!failed) failed = pgRun(pgStateFunction, NULL);
    if (failed) die("cannot prepare the PostgreSQL server: %s", failed);
}

/// After the seed commands: schema fz as SQL (pg_dump's meta-commands such as \restrict left out).
static void pgKeepSeed(void) {
    char command[PATH_MAX * 2 + 256];
    snprintf(command, sizeof command,
        "dump=$(ls /usr/lib/postgresql/*/bin/pg_dump 2>/dev/null | tail -1); \"${dump:-pg_dump}\" -h '%s' -U postgres "
        "-n fz --inserts --no-owner --no-privileges postgres | grep -v '^\\\\'",
        pgDirectory);
    FILE *dump = popen(command, "r");
    if (!dump) die("cannot run pg_dump");
    size_t capacity = 1 << 16, size = 0;
    pgSeedSQL = malloc(capacity);
    for (size_t n; (n = fread(pgSeedSQL + size, 1, capacity - size - 1, dump)) > 0;) {
        size += n;
        if (size + 1 == capacity) pgSeedSQL = realloc(pgSeedSQL, capacity *= 2);
    }
    pgSeedSQL[size] = 0;
    if (pclose(dump) != 0 || !strstr(pgSeedSQL, "CREATE TABLE")) die("pg_dump of schema fz failed");
}

// MARK: - libFuzzer entry points

static void seedCommand(const char *db, const char *stdinText, ...) {
    Args *a = calloc(1, sizeof(Args));
    arg(a, binary);
    va_list list;
    va_start(list, stdinText);
    const char *word = va_arg(list, const char *);
    arg(a, word);
    arg(a, db);
    while ((word = va_arg(list, const char *))) arg(a, word);
    va_end(list);
    char inPath[PATH_MAX + 16];
    snprintf(inPath, sizeof inPath, "%s/seed.json", work);
    writeFile(inPath, stdinText, strlen(stdinText));
    Outcome *o = malloc(sizeof(Outcome));
    // A loaded machine may take long over the first start of an ASan binary.
    double timeout = timeoutSeconds;
    timeoutSeconds = timeout > 300 ? timeout : 300;
    run(a->argv, work, inPath, o);
    timeoutSeconds = timeout;
    if (o->status != 0)
        die("seeding the scratch database failed: %s %s: exit %d, signal %d%s: %s", a->argv[1], a->argv[3], o->status,
            o->signal, o->timedOut ? " (timed out)" : "", o->err);
    free(o);
    free(a);
}

static void loadSeed(int index, const char *name, const char *file) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", work, file);
    seeds[index].name = name;
    if (!(seeds[index].bytes = readFile(path, &seeds[index].size))) die("no seed database %s", path);
}

// One function per kind of violation: libFuzzer's -fork mode tells crashes apart by their stack.
__attribute__((noinline)) static void hang(void) { abort(); }
__attribute__((noinline)) static void crash(void) { abort(); }
__attribute__((noinline)) static void oddExitStatus(void) { abort(); }
__attribute__((noinline)) static void refusalChangedFiles(void) { abort(); }
__attribute__((noinline)) static void readChangedFiles(void) { abort(); }
__attribute__((noinline)) static void leftoverJournal(void) { abort(); }
__attribute__((noinline)) static void brokenDatabase(void) { abort(); }

static void fail(int kind) {
    static void (*const kinds[])(void) = {crash, hang, crash, oddExitStatus, refusalChangedFiles, readChangedFiles,
        leftoverJournal, brokenDatabase};
    kinds[kind]();
    abort();
}

/// Leaves nothing behind but the directories of failed cases.
static void cleanUp(void) {
    static const char *files[] = {"case", "full.sqlite", "single.sqlite", "seed.json", "in.json", "stdout", "stderr"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%s", work, files[i]);
        removeTree(path);
    }
    rmdir(work);
}

/// The full seed: three related tables with indexes, made by jsonsql in `db` (without foreign
/// keys on PostgreSQL, where jsonsql does not make them yet).
static void seedFull(const char *db) {
    int sqlite = db != pgURL;
    seedCommand(db, "", "create-table", "team", "id:text:pk", "name:text:notnull", NULL);
    seedCommand(db, "", "create-table", "player", "id:text:pk", "name:text:notnull", "score:integer",
        "ratio:real", "price:numeric", "active:boolean", "born:date", "created:datetime", "address:json", "tags:json",
        sqlite ? "team:text:references=team.id:on-delete=set-null" : "team:text", NULL);
    seedCommand(db, "", "create-table", "member", sqlite ? "team:text:references=team.id:on-delete=cascade" : "team:text",
        sqlite ? "player:text:references=player.id" : "player:text", "doc:json", sqlite ? "country:text:generated=doc.address.country" : "country:text",
        "--pk", "team,player", NULL);
    seedCommand(db, "[{\"id\":\"t1\",\"name\":\"Red\"},{\"id\":\"t2\",\"name\":\"Blue\"}]", "insert", "team", NULL);
    seedCommand(db,
        "{\"id\":\"p1\",\"name\":\"Ann\",\"score\":90000,\"ratio\":0.5,\"price\":19.90,\"active\":true,"
        "\"born\":\"1990-01-02\",\"created\":\"2024-05-01 12:30:00\",\"address\":{\"country\":\"DE\",\"city\":\"Berlin\","
        "\"zip.code\":\"10115\",\"geo\":{\"lat\":52.5}},\"tags\":[\"a\",\"pro\"],\"team\":\"t1\"}\n"
        "{\"id\":\"p2\",\"name\":\"Bob\",\"score\":-3,\"active\":false,\"address\":{\"country\":\"FR\"},\"tags\":[],\"team\":\"t2\"}\n"
        "{\"id\":\"p3\",\"name\":\"Zoë\",\"score\":null,\"address\":null,\"tags\":[1,2.5,null,{\"x\":1}]}\n",
        "insert", "player", NULL);
    seedCommand(db, "{\"team\":\"t1\",\"player\":\"p1\",\"doc\":{\"address\":{\"country\":\"DE\"}}}",
        "insert", "member", NULL);
    seedCommand(db, "", "index", "player", "address.country", "--name", "player_country", NULL);
    seedCommand(db, "", "index", "player", "score", "--name", "by_score", "--where", "active = true", NULL);
    if (sqlite) seedCommand(db, "", "index", "player", "name", "--name", "name_nocase", "--nocase", NULL);
    else seedCommand(db, "", "index", "player", "address", "--name", "name_nocase", "--gin", NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc; (void)argv;
    const char *bin = getenv("JSONSQL_FUZZ_BIN");
    if (!realpath(bin ? bin : ".build-fuzz/jsonsql-asan/debug/jsonsql", binary))
        die("no jsonsql binary at %s; build it with Fuzz/run.sh or set JSONSQL_FUZZ_BIN", bin ? bin : ".build-fuzz/jsonsql-asan/debug/jsonsql");
    verbose = getenv("JSONSQL_FUZZ_VERBOSE") && atoi(getenv("JSONSQL_FUZZ_VERBOSE"));
    if (getenv("JSONSQL_FUZZ_TIMEOUT")) timeoutSeconds = atof(getenv("JSONSQL_FUZZ_TIMEOUT"));
    if (getenv("JSONSQL_FUZZ_SKIP")) skipList = getenv("JSONSQL_FUZZ_SKIP");
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/jsonsql-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work)) die("cannot create a directory in %s", work);
    atexit(cleanUp);
    coverageFd = memfd_create("jsonsql-coverage", 0);
    if (coverageFd >= 0 && ftruncate(coverageFd, COUNTERS) == 0) {
        childCounters = mmap(NULL, COUNTERS, PROT_READ | PROT_WRITE, MAP_SHARED, coverageFd, 0);
        if (childCounters == MAP_FAILED) childCounters = NULL;
    }

    // The scratch databases every input starts from: three related tables with indexes, a
    // table created from data, no file, an empty file and a file that is not a database.
    seedFull("full.sqlite");
    seedCommand("single.sqlite",
        "[{\"id\":1,\"title\":\"x\",\"n\":1.5,\"doc\":{\"a\":[1,2]}},{\"id\":2,\"title\":null,\"n\":2,\"doc\":{}}]",
        "insert", "doc", "--pk", "id", NULL);
    loadSeed(FULL, "full (tables team, player, member; indexes player_country, by_score, name_nocase)", "full.sqlite");
    loadSeed(SINGLE, "single (table doc, created by insert)", "single.sqlite");
    seeds[MISSING] = (Seed){NULL, 0, "missing (no file)"};
    seeds[EMPTY] = (Seed){(uint8_t *)"", 0, "empty (a 0-byte file)"};
    static const char garbage[] = "this is not a database, it is text\n";
    seeds[GARBAGE] = (Seed){(uint8_t *)garbage, sizeof garbage - 1, "garbage (a text file)"};
    // Schema fz on the server, seeded as full; db.sqlite in the directory is full too (for copy).
    const char *pgDir = getenv("JSONSQL_FUZZ_POSTGRES");
    if (pgDir && *pgDir) {
        pgInitialize(pgDir);
        seedFull(pgURL);
        pgKeepSeed();
        seeds[POSTGRES] = (Seed){seeds[FULL].bytes, seeds[FULL].size, "postgres (schema fz as full; db.sqlite is full)"};
        fprintf(stderr, "command-line fuzzer: PostgreSQL at %s\n", pgURL);
    }
    return 0;
}

/// Literal inputs, for the committed corpus and for writing a case down by hand:
///
///     jsonsql-fuzz full            <- the scratch database: full, single, missing, empty or garbage
///     query                        <- then one argument a line, after `jsonsql`
///     db.sqlite
///     --where
///     address.country = DE
///     --stdin                      <- optional: the rest is standard input (for shell, the script)
///
/// Returns the seed, or -1 when the input is not a well-formed literal.
static const char literalMagic[] = "jsonsql-fuzz ";

static int literal(const uint8_t *data, size_t size, Args *argv, Args *input, Shape *shape, int *scriptFile) {
    static const char *names[] = {"full", "single", "missing", "empty", "garbage", "postgres"};
    const char *text = (const char *)data, *limit = text + size;
    const char *line = text + sizeof literalMagic - 1;
    const char *newline = memchr(line, '\n', limit - line);
    if (!newline) return -1;
    int seed = -1;
    for (int i = 0; i < SEEDS; i++)
        if ((size_t)(newline - line) == strlen(names[i]) && !memcmp(line, names[i], newline - line)) seed = i;
    if (seed < 0 || (seed == POSTGRES && !pg)) return -1;
    arg(argv, binary);
    shape->sub = -1;
    int sawSQL = 0;
    for (line = newline + 1; line < limit; line = newline + 1) {
        newline = memchr(line, '\n', limit - line);
        if (!newline) newline = limit;
        if (newline - line == 7 && !memcmp(line, "--stdin", 7)) {
            size_t n = newline < limit ? (size_t)(limit - newline - 1) : 0;
            if (n >= ARENA) return -1;
            memcpy(input->arena, newline + 1, n);
            input->used = n;
            input->arena[n] = 0;
            break;
        }
        if (memchr(line, 0, newline - line)) return -1;
        // $PG stands for schema fz's URL.
        for (const char *c = line; c < newline; c++) {
            if (pg && newline - c >= 3 && !memcmp(c, "$PG", 3)) {
                put(argv, pgURL);
                c += 2;
            } else {
                putc1(argv, *c);
            }
        }
        end(argv);
        const char *word = argv->argv[argv->argc - 1];
        if (argv->argc == 2)
            for (int i = 0; i < SUBCOMMANDS; i++)
                if (!strcmp(word, subcommands[i])) shape->sub = i;
        if (!strcmp(word, "--sql")) sawSQL = 1;
        if (!strcmp(word, "--dry-run") || !strcmp(word, "--help") || !strcmp(word, "-h") || !strcmp(word, "--version"))
            shape->readOnly = 1;
        if (argv->argc == 4 && shape->sub == SHELL && !strcmp(word, "script.jsonsql")) *scriptFile = 1;
    }
    int sub = shape->sub;
    if (sub == TABLES || sub == SCHEMA || sub == INDEXES || (sub == QUERY && !sawSQL)) shape->readOnly = 1;
    if (sub == SHELL) {
        // One line (one command or one statement) is all or nothing; a longer script is not.
        int lines = 0;
        for (size_t i = 0; i < input->used; i++)
            if (input->arena[i] == '\n' && i + 1 < input->used) lines++;
        shape->atomic = lines == 0 && !strstr(input->arena, ".read");
    }
    return seed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static Args argv, input;
    static unsigned long counter;
    Bytes b = {data, size};
    argv.argc = 0;
    argv.used = argv.start = 0;
    input.argc = 0;
    input.used = input.start = 0;

    int seed, scriptFile = 0;
    Shape shape = {0};
    shape.atomic = 1;
    if (size >= sizeof literalMagic - 1 && !memcmp(data, literalMagic, sizeof literalMagic - 1)) {
        seed = literal(data, size, &argv, &input, &shape, &scriptFile);
        if (seed < 0) return 0;
    } else {
        static const int seedWeights[] = {FULL, FULL, FULL, FULL, FULL, SINGLE, SINGLE, MISSING, EMPTY, GARBAGE};
        static const int pgSeedWeights[] = {POSTGRES, POSTGRES, POSTGRES, POSTGRES, POSTGRES, POSTGRES, POSTGRES, POSTGRES,
            FULL, MISSING};
        seed = pg ? ONE_OF(&b, pgSeedWeights) : ONE_OF(&b, seedWeights);
        shape.sub = pick(&b, SUBCOMMANDS);
        arg(&argv, binary);
        arg(&argv, subcommands[shape.sub]);
        static const char *databases[] = {"db.sqlite", "db.sqlite", "db.sqlite", "db.sqlite", "db.sqlite", "db.sqlite",
            "./db.sqlite", "nosuch/db.sqlite", ".", "in.json"};
        if (seed == POSTGRES && chance(&b, 90)) {
            if (chance(&b, 80)) arg(&argv, pgURL); else pgDatabase(&argv, &b);
        } else if (chance(&b, 97)) {
            arg(&argv, ONE_OF(&b, databases));
        }
        options(&argv, &b, shape.sub, &shape, 0);
        // A script in a file or on standard input; JSON for insert on standard input.
        if (shape.sub == SHELL) {
            scriptFile = chance(&b, 25);
            if (scriptFile) arg(&argv, "script.jsonsql");
            script(&input, &b, &shape);
            shape.usesStdin = 1;
        } else if (shape.usesStdin) {
            if (chance(&b, 90)) records(&input, &b); else raw(&input, &b, 255);
        }
    }
    size_t inputSize = input.used;
    input.arena[inputSize] = 0;
    if (verbose) {
        fprintf(stderr, "#%lu\n", ++counter);
        printCommand(stderr, &argv, seed, input.arena, inputSize);
    }

    char dir[PATH_MAX + 8], db[PATH_MAX + 32], inPath[PATH_MAX + 32], scriptPath[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/case", work);
    removeTree(dir);
    if (mkdir(dir, 0755)) die("cannot create %s", dir);
    snprintf(db, sizeof db, "%s/db.sqlite", dir);
    snprintf(inPath, sizeof inPath, "%s/in.json", work);
    snprintf(scriptPath, sizeof scriptPath, "%s/script.jsonsql", dir);
    if (seed != MISSING) writeFile(db, seeds[seed].bytes, seeds[seed].size);
    writeFile(inPath, input.arena, inputSize);
    if (scriptFile) writeFile(scriptPath, input.arena, inputSize);
    // insert may name in.json as a file: give it one in the directory too.
    char inCopy[PATH_MAX + 32];
    snprintf(inCopy, sizeof inCopy, "%s/in.json", dir);
    writeFile(inCopy, input.arena, inputSize);

    if (pg) pgReset();
    static char before[65536], after[65536];
    snapshot(dir, before, sizeof before);
    if (pg) pgSnapshot(before, sizeof before);
    int dbExisted = access(db, F_OK) == 0;
    static Outcome o;
    run(argv.argv, dir, inPath, &o);
    snapshot(dir, after, sizeof after);
    if (pg) pgSnapshot(after, sizeof after);
    int dbExists = access(db, F_OK) == 0;
    if (verbose) fprintf(stderr, "  -> exit %d, signal %d: %.200s\n", o.status, o.signal, o.err);

    char problem[1024];
    problem[0] = 0;
    int kind = 0;
    // With SWIFT_BACKTRACE off and ASan's abort_on_error, a trap, a failed precondition and a
    // sanitizer report all end in a signal. Standard error is not searched for them: jsonsql
    // echoes its input there, so any text could appear.
    if (o.timedOut) kind = 1, snprintf(problem, sizeof problem, "no exit after %.0f s", timeoutSeconds);
    else if (o.signal) kind = 2, snprintf(problem, sizeof problem, "killed by signal %d (%s)", o.signal, strsignal(o.signal));
    else if (o.status != 0 && o.status != 1 && o.status != 64)
        kind = 3, snprintf(problem, sizeof problem, "exit status %d", o.status);
    if (!problem[0] && o.status != 0 && shape.atomic && strcmp(before, after))
        kind = 4, snprintf(problem, sizeof problem, "refused (exit %d) but the directory changed", o.status);
    if (!problem[0] && o.status == 0 && shape.readOnly && strcmp(before, after))
        kind = 5, snprintf(problem, sizeof problem, "a command that only reads changed the directory");
    if (!problem[0] && o.status == 0) {
        static const char *leftovers[] = {"db.sqlite-journal", "db.sqlite-wal", "db.sqlite-shm"};
        for (size_t i = 0; i < 3 && !problem[0]; i++) {
            char path[PATH_MAX + 48];
            snprintf(path, sizeof path, "%s/%s", dir, leftovers[i]);
            if (access(path, F_OK) == 0) kind = 6, snprintf(problem, sizeof problem, "%s left after a success", leftovers[i]);
        }
        char message[900];
        const char *broken = checkDatabase(db, message, sizeof message);
        if (broken) kind = 7, snprintf(problem, sizeof problem, "%s", broken);
    }
    if (!problem[0]) return 0;

    const char *known = knownBug(&argv, &o, shape.sub, dbExisted, dbExists, input.arena);
    if (known) {
        static unsigned long skipped;
        if (skipped++ % 100 == 0) fprintf(stderr, "command-line fuzzer: let known bug %s pass (JSONSQL_FUZZ_SKIP)\n", known);
        return 0;
    }
    fprintf(stderr, "\n==== jsonsql command-line fuzzer: %s\n", problem);
    printCommand(stderr, &argv, seed, input.arena, inputSize);
    if (shape.sub == SHELL && scriptFile) fprintf(stderr, "  (the script is in script.jsonsql; stdin holds the same bytes)\n");
    fprintf(stderr, "  exit status: %d, signal: %d\n  directory before: %s\n  directory after:  %s\n", o.status, o.signal,
        before, after);
    // Keep the directory for a look, where the next run does not remove it.
    char kept[PATH_MAX + 32];
    snprintf(kept, sizeof kept, "%s/failed-%ld", work, (long)time(NULL));
    rename(dir, kept);
    fprintf(stderr, "  stderr:\n%.4000s\n  the directory is kept in %s\n====\n", o.err, kept);
    fail(kind);
    return 0;
}
