// The validating scan of JSON strings and containers, the hot loop of reading a file. Only
// acceptance is decided here: anything doubtful returns false and the Swift scanner, which
// names every error, scans the same bytes again.
#include "CJSONScan.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { stack_limit = 4096 };

static inline bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static inline bool is_hex(uint8_t c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// One multi-byte UTF-8 sequence at `*p`: a shortest form, no surrogate, at most U+10FFFF.
static inline bool utf8_sequence(const uint8_t *b, size_t n, size_t *p) {
    size_t at = *p;
    uint8_t lead = b[at];
    size_t length;
    uint32_t minimum, scalar;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, minimum = 0x80, scalar = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, minimum = 0x800, scalar = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, minimum = 0x10000, scalar = lead & 0x07;
    } else {
        return false;
    }
    if (length > n - at) return false;
    for (size_t i = 1; i < length; i++) {
        uint8_t next = b[at + i];
        if ((next & 0xC0) != 0x80) return false;
        scalar = scalar << 6 | (next & 0x3F);
    }
    if (scalar < minimum || scalar > 0x10FFFF || (scalar >= 0xD800 && scalar <= 0xDFFF)) {
        return false;
    }
    *p = at + length;
    return true;
}

/// The rest of a string from `*p` (past its opening quote); `*p` ends past the closing quote.
/// `*unicode` is set where the string's bytes hold `\u`: a `\u` escape, or `u` after an escaped
/// backslash.
static inline __attribute__((always_inline)) bool string_rest(
    const uint8_t *b, size_t n, size_t *p, bool *escaped, bool *unicode) {
    size_t at = *p;
    for (;;) {
        // Up to the first byte that needs a look: a quote, a backslash, a control character
        // or a byte of a multi-byte sequence.
#if defined(__SSE2__)
        const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
        const __m128i space = _mm_set1_epi8(0x20);
        for (;;) {
            if (n - at < 16) goto bytewise;
            __m128i v = _mm_loadu_si128((const __m128i *)(b + at));
            // Signed: below 0x20 holds the control characters and every byte from 0x80.
            __m128i look = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                _mm_cmplt_epi8(v, space));
            unsigned mask = (unsigned)_mm_movemask_epi8(look);
            if (mask != 0) {
                at += (size_t)__builtin_ctz(mask);
                goto found;
            }
            at += 16;
        }
    bytewise:
#endif
        for (;;) {
            if (at >= n) return false;
            uint8_t c = b[at];
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
            at++;
        }
#if defined(__SSE2__)
    found:
#endif
        {
            uint8_t c = b[at];
            if (c == '"') {
                *p = at + 1;
                return true;
            }
            if (c == '\\') {
                if (n - at < 2) return false;
                switch (b[at + 1]) {
                case '\\':
                    if (n - at > 2 && b[at + 2] == 'u') *unicode = true;
                    at += 2;
                    break;
                case '"': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                    at += 2;
                    break;
                case 'u':
                    *unicode = true;
                    if (n - at < 6) return false;
                    if (!is_hex(b[at + 2]) || !is_hex(b[at + 3]) || !is_hex(b[at + 4])
                        || !is_hex(b[at + 5])) {
                        return false;
                    }
                    at += 6;
                    break;
                default:
                    return false;
                }
                *escaped = true;
            } else if (c < 0x20) {
                return false;
            } else {
                do {
                    if (!utf8_sequence(b, n, &at)) return false;
                } while (at < n && b[at] >= 0x80);
            }
        }
    }
}

/// Skips the whitespace at `*p`, counting line ends; true when there was any.
static bool space_run(const uint8_t *b, size_t n, size_t *p, size_t *newlines) {
    size_t at = *p;
    while (at < n) {
        uint8_t c = b[at];
        if (c == ' ' || c == '\t') {
            at++;
        } else if (c == '\n') {
            (*newlines)++;
            at++;
        } else if (c == '\r') {
            if (at + 1 < n && b[at + 1] != '\n') (*newlines)++;
            at++;
        } else {
            break;
        }
    }
    bool skipped = at != *p;
    *p = at;
    return skipped;
}

/// Skips whitespace from `*p`, counting line ends; true when there was any.
static inline __attribute__((always_inline)) bool skip_space(
    const uint8_t *b, size_t n, size_t *p, size_t *newlines) {
    // Most places hold none, or one space (`": "`, `", "`): in line.
    if (*p >= n || b[*p] > 0x20) return false;
    if (b[*p] == ' ' && (*p + 1 >= n || b[*p + 1] > 0x20)) {
        (*p)++;
        return true;
    }
    return space_run(b, n, p, newlines);
}

/// A number at `*p`, which must be followed by a byte that is not a digit.
static inline __attribute__((always_inline)) bool number(const uint8_t *b, size_t n, size_t *p) {
    size_t at = *p;
    if (b[at] == '-') at++;
    if (at >= n) return false;
    if (b[at] == '0') {
        at++;
    } else if (b[at] >= '1' && b[at] <= '9') {
        do at++; while (at < n && is_digit(b[at]));
    } else {
        return false;
    }
    if (at < n && b[at] == '.') {
        at++;
        if (at >= n || !is_digit(b[at])) return false;
        do at++; while (at < n && is_digit(b[at]));
    }
    if (at < n && (b[at] == 'e' || b[at] == 'E')) {
        at++;
        if (at < n && (b[at] == '+' || b[at] == '-')) at++;
        if (at >= n || !is_digit(b[at])) return false;
        do at++; while (at < n && is_digit(b[at]));
    }
    if (at >= n || is_digit(b[at])) return false;
    *p = at;
    return true;
}

static inline bool literal(const uint8_t *b, size_t n, size_t *p, const char *word, size_t length) {
    if (n - *p < length) return false;
    for (size_t i = 0; i < length; i++) {
        if (b[*p + i] != (uint8_t)word[i]) return false;
    }
    *p += length;
    return true;
}

bool jsonsql_scan_string(
    const uint8_t *bytes, size_t count, size_t pos, jsonsql_scan_result *out) {
    if (pos >= count || bytes[pos] != '"') return false;
    size_t at = pos + 1;
    bool escaped = false, unicode = false;
    if (!string_rest(bytes, count, &at, &escaped, &unicode)) return false;
    *out = (jsonsql_scan_result){.end = at, .escaped = escaped, .unicode_escape = unicode};
    return true;
}

/// The container at `pos`; `*end` past it. `*unicode` is set as `string_rest` sets it.
static bool container(
    const uint8_t *b, size_t n, size_t pos, size_t max_depth, size_t *end, size_t *newlines_out,
    bool *spaced_out, bool *keys_escaped_out, bool *unicode) {
    uint8_t closes[stack_limit];
    size_t depth = 0, at = pos, newlines = 0;
    bool spaced = false, keys_escaped = false, ignored = false;
    if (max_depth > stack_limit) max_depth = stack_limit;
    // On anything but a container, the loop below would look at a close that is not there.
    if (pos >= n || (b[pos] != '{' && b[pos] != '[')) return false;
    // Whitespace is looked for only where the expected byte is not found: compact JSON, the
    // common case, never looks.
    for (;;) {
        // On a value.
        if (at >= n) return false;
        uint8_t c = b[at];
        if (c == '{' || c == '[') {
            if (depth >= max_depth) return false;
            uint8_t close = c == '{' ? '}' : ']';
            closes[depth++] = close;
            at++;
            if (at < n && b[at] <= 0x20 && skip_space(b, n, &at, &newlines)) spaced = true;
            if (at >= n) return false;
            if (b[at] == close) {
                at++;
                if (--depth == 0) break;
            } else {
                if (close == '}') goto key;
                continue;
            }
        } else if (c == '"') {
            at++;
            if (!string_rest(b, n, &at, &ignored, unicode)) return false;
        } else if (c == '-' || is_digit(c)) {
            if (!number(b, n, &at)) return false;
        } else if (c == 't') {
            if (!literal(b, n, &at, "true", 4)) return false;
        } else if (c == 'f') {
            if (!literal(b, n, &at, "false", 5)) return false;
        } else if (c == 'n') {
            if (!literal(b, n, &at, "null", 4)) return false;
        } else if (skip_space(b, n, &at, &newlines)) {
            spaced = true;
            continue;
        } else {
            return false;
        }
        // After a value: a separator, or the close of one or more containers.
        for (;;) {
            if (at >= n) return false;
            c = b[at];
            uint8_t close = closes[depth - 1];
            if (c == ',') {
                at++;
                if (close == '}') goto key;
                // Before an element: one look, as `[1, 2]` writes a space there.
                if (at < n && b[at] <= 0x20 && skip_space(b, n, &at, &newlines)) spaced = true;
                break;
            }
            if (c == close) {
                at++;
                if (--depth == 0) goto done;
            } else if (skip_space(b, n, &at, &newlines)) {
                spaced = true;
            } else {
                return false;
            }
        }
        continue;
    key:
        if (at >= n) return false;
        if (b[at] != '"') {
            if (!skip_space(b, n, &at, &newlines)) return false;
            spaced = true;
            if (at >= n || b[at] != '"') return false;
        }
        {
            bool escaped = false;
            at++;
            if (!string_rest(b, n, &at, &escaped, unicode)) return false;
            if (escaped) keys_escaped = true;
        }
        if (at >= n) return false;
        if (b[at] != ':') {
            if (!skip_space(b, n, &at, &newlines)) return false;
            spaced = true;
            if (at >= n || b[at] != ':') return false;
        }
        at++;
        // Before a member's value: one look, as `": "` writes a space there.
        if (at < n && b[at] <= 0x20 && skip_space(b, n, &at, &newlines)) spaced = true;
    }
done:
    *end = at;
    *newlines_out += newlines;
    *spaced_out = spaced;
    *keys_escaped_out = keys_escaped;
    return true;
}

bool jsonsql_scan_container(
    const uint8_t *b, size_t n, size_t pos, size_t max_depth, jsonsql_scan_result *out) {
    size_t end = 0, newlines = 0;
    bool spaced = false, keys_escaped = false, unicode = false;
    if (!container(b, n, pos, max_depth, &end, &newlines, &spaced, &keys_escaped, &unicode)) {
        return false;
    }
    *out = (jsonsql_scan_result){
        .end = end, .newlines = newlines, .spaced = spaced, .keys_escaped = keys_escaped,
        .unicode_escape = unicode};
    return true;
}

/// A number at `*p` into `field`: its kind, and an integer's value where it fits in 64 bits.
static inline bool number_value(const uint8_t *b, size_t n, size_t *p, jsonsql_field *field) {
    size_t at = *p;
    bool negative = b[at] == '-';
    if (negative) at++;
    uint64_t magnitude = 0;
    bool overflow = false;
    if (at < n && b[at] >= '1' && b[at] <= '9') {
        do {
            uint64_t digit = b[at] - '0';
            if (magnitude > (UINT64_MAX - digit) / 10) overflow = true;
            magnitude = magnitude * 10 + digit;
            at++;
        } while (at < n && is_digit(b[at]));
    }
    if (!number(b, n, p)) return false;
    if (*p != at) {
        // A fraction, an exponent or a lone 0 follows what was read.
        bool zero = *p == at + 1 && b[at] == '0';
        if (!zero) {
            field->kind = jsonsql_kind_float;
            return true;
        }
    }
    if (overflow || magnitude > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
        field->kind = jsonsql_kind_big_integer;
    } else {
        field->kind = jsonsql_kind_integer;
        field->integer = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
    }
    return true;
}

long jsonsql_scan_members(
    const uint8_t *b, size_t n, size_t pos, size_t max_depth, jsonsql_field *fields,
    size_t capacity, jsonsql_scan_result *out) {
    size_t at = pos, newlines = 0, found = 0;
    bool closed = false, unicode = false;
    while (found < capacity) {
        jsonsql_field *field = &fields[found];
        // Whitespace is looked for only where the expected byte is not found.
        if (at >= n) return -1;
        if (b[at] != '"' && !(skip_space(b, n, &at, &newlines) && at < n && b[at] == '"')) {
            return -1;
        }
        bool escaped = false;
        field->key_start = ++at;
        if (!string_rest(b, n, &at, &escaped, &unicode)) return -1;
        field->key_end = at - 1;
        field->key_escaped = escaped;
        if (at >= n) return -1;
        if (b[at] != ':' && !(skip_space(b, n, &at, &newlines) && at < n && b[at] == ':')) {
            return -1;
        }
        at++;
        if (at < n && b[at] <= 0x20) skip_space(b, n, &at, &newlines);
        if (at >= n) return -1;
        field->start = at;
        field->integer = 0;
        field->escaped = false;
        field->keys_escaped = false;
        uint8_t c = b[at];
        if (c == '"') {
            escaped = false;
            field->start = ++at;
            if (!string_rest(b, n, &at, &escaped, &unicode)) return -1;
            field->kind = jsonsql_kind_string;
            field->end = at - 1;
            field->escaped = escaped;
        } else {
            if (c == '{' || c == '[') {
                field->kind = c == '{' ? jsonsql_kind_object : jsonsql_kind_array;
                if (!container(
                        b, n, at, max_depth, &at, &newlines, &field->escaped,
                        &field->keys_escaped, &unicode)) {
                    return -1;
                }
            } else if (c == '-' || is_digit(c)) {
                if (!number_value(b, n, &at, field)) return -1;
            } else if (c == 't') {
                if (!literal(b, n, &at, "true", 4)) return -1;
                field->kind = jsonsql_kind_true;
            } else if (c == 'f') {
                if (!literal(b, n, &at, "false", 5)) return -1;
                field->kind = jsonsql_kind_false;
            } else if (c == 'n') {
                if (!literal(b, n, &at, "null", 4)) return -1;
                field->kind = jsonsql_kind_null;
            } else {
                return -1;
            }
            field->end = at;
        }
        found++;
        if (at < n && b[at] <= 0x20) skip_space(b, n, &at, &newlines);
        if (at >= n) return -1;
        if (b[at] == ',') {
            at++;
            // On to the next key (where the Swift scanner may go on after a full batch): one
            // look, as `", "` writes a space there.
            if (at < n && b[at] <= 0x20) skip_space(b, n, &at, &newlines);
        } else if (b[at] == '}') {
            at++;
            closed = true;
            break;
        } else {
            return -1;
        }
    }
    *out = (jsonsql_scan_result){
        .end = at, .newlines = newlines, .closed = closed, .unicode_escape = unicode};
    return (long)found;
}
