#ifndef CJSONSCAN_H
#define CJSONSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// What `jsonsql_scan_container` or `jsonsql_scan_string` found, in the terms of the Swift
/// `JSONScanner`, which calls them first and scans again itself when they decline.
typedef struct {
    /// The index just past the value (past a string's closing quote).
    size_t end;
    /// Line ends passed inside the value: LF, and CR not followed by LF.
    size_t newlines;
    /// Containers: whitespace outside strings.
    bool spaced;
    /// Containers: a key written with an escape.
    bool keys_escaped;
    /// Strings: an escape inside.
    bool escaped;
    /// Members: the object's `}` was reached (else `capacity` members were found, and `end`
    /// is on the next key).
    bool closed;
    /// The bytes checked hold `\u` (in a string: a `\u` escape, or `u` after an escaped
    /// backslash), as `RecordPrecheck` looks for it.
    bool unicode_escape;
} jsonsql_scan_result;

/// The kinds of `JSONValueKind`, by its raw values.
enum {
    jsonsql_kind_string, jsonsql_kind_integer, jsonsql_kind_float, jsonsql_kind_big_integer,
    jsonsql_kind_true, jsonsql_kind_false, jsonsql_kind_null, jsonsql_kind_object,
    jsonsql_kind_array
};

/// One member of an object, as the Swift scanner's `JSONField` holds it.
typedef struct {
    /// The key's bytes, between its quotes.
    size_t key_start, key_end;
    /// The value's bytes; for strings, between the quotes.
    size_t start, end;
    /// The value of a `jsonsql_kind_integer`, else 0.
    int64_t integer;
    uint8_t kind;
    bool key_escaped;
    /// Strings: an escape inside; containers: whitespace outside strings.
    bool escaped;
    /// Containers: a key inside written with an escape.
    bool keys_escaped;
} jsonsql_field;

/// Checks the object or array whose `{` or `[` is at `pos`. True when `bytes[pos..<count]`
/// begin with one whole container that is valid JSON (RFC 8259, UTF-8 checked, numbers followed
/// by a byte, at most `max_depth` levels deep), with `out` filled; false otherwise (invalid,
/// cut short or too deep), when the caller's own scan must say which. Never reads past `count`.
bool jsonsql_scan_container(
    const uint8_t *bytes, size_t count, size_t pos, size_t max_depth, jsonsql_scan_result *out);

/// Scans the members of an object from `pos`, on the first one's key (after the `{` and any
/// whitespace), into `fields`, at most `capacity` of them: each member, the `,` and whitespace
/// after it, and the closing `}`. Returns the number of members found, with `out`'s `end`,
/// `newlines` and `closed`; -1 where the bytes may not be valid, as `jsonsql_scan_container`.
long jsonsql_scan_members(
    const uint8_t *bytes, size_t count, size_t pos, size_t max_depth, jsonsql_field *fields,
    size_t capacity, jsonsql_scan_result *out);

/// Checks the string whose opening quote is at `pos`, as `jsonsql_scan_container` checks one.
bool jsonsql_scan_string(
    const uint8_t *bytes, size_t count, size_t pos, jsonsql_scan_result *out);

/// Asks the processor to bring the cache line at `address` in ahead of a read: a hint, never a
/// fault, whatever the address.
static inline void jsonsql_prefetch(const void *address) { __builtin_prefetch(address); }

#endif
