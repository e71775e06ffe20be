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
} jsonsql_scan_result;

/// Checks the object or array whose `{` or `[` is at `pos`. True when `bytes[pos..<count]`
/// begin with one whole container that is valid JSON (RFC 8259, UTF-8 checked, numbers followed
/// by a byte, at most `max_depth` levels deep), with `out` filled; false otherwise (invalid,
/// cut short or too deep), when the caller's own scan must say which. Never reads past `count`.
bool jsonsql_scan_container(
    const uint8_t *bytes, size_t count, size_t pos, size_t max_depth, jsonsql_scan_result *out);

/// Checks the string whose opening quote is at `pos`, as `jsonsql_scan_container` checks one.
bool jsonsql_scan_string(
    const uint8_t *bytes, size_t count, size_t pos, jsonsql_scan_result *out);

#endif
