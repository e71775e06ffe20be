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
static inline __attribute__((always_inline)) bool string_rest(const uint8_t *b, size_t n, size_t *p, bool *escaped) {
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
                case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                    at += 2;
                    break;
                case 'u':
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

/// Skips whitespace from `*p`, counting line ends; true when there was any.
static inline bool skip_space(const uint8_t *b, size_t n, size_t *p, size_t *newlines) {
    size_t at = *p;
    if (at >= n || b[at] > 0x20) return false;
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

/// A number at `*p`, which must be followed by a byte that is not a digit.
static inline bool number(const uint8_t *b, size_t n, size_t *p) {
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
    bool escaped = false;
    if (!string_rest(bytes, count, &at, &escaped)) return false;
    out->end = at;
    out->newlines = 0;
    out->spaced = false;
    out->keys_escaped = false;
    out->escaped = escaped;
    return true;
}

bool jsonsql_scan_container(
    const uint8_t *b, size_t n, size_t pos, size_t max_depth, jsonsql_scan_result *out) {
    uint8_t closes[stack_limit];
    size_t depth = 0, at = pos, newlines = 0;
    bool spaced = false, keys_escaped = false, ignored = false;
    if (max_depth > stack_limit) max_depth = stack_limit;
    for (;;) {
        // On a value.
        if (at >= n) return false;
        uint8_t c = b[at];
        if (c == '{' || c == '[') {
            if (depth >= max_depth) return false;
            uint8_t close = c == '{' ? '}' : ']';
            closes[depth++] = close;
            at++;
            if (skip_space(b, n, &at, &newlines)) spaced = true;
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
            if (!string_rest(b, n, &at, &ignored)) return false;
        } else if (c == '-' || is_digit(c)) {
            if (!number(b, n, &at)) return false;
        } else if (c == 't') {
            if (!literal(b, n, &at, "true", 4)) return false;
        } else if (c == 'f') {
            if (!literal(b, n, &at, "false", 5)) return false;
        } else if (c == 'n') {
            if (!literal(b, n, &at, "null", 4)) return false;
        } else {
            return false;
        }
        // After a value: a separator, or the close of one or more containers.
        for (;;) {
            if (skip_space(b, n, &at, &newlines)) spaced = true;
            if (at >= n) return false;
            c = b[at];
            uint8_t close = closes[depth - 1];
            if (c == ',') {
                at++;
                if (skip_space(b, n, &at, &newlines)) spaced = true;
                if (close == '}') goto key;
                break;
            }
            if (c != close) return false;
            at++;
            if (--depth == 0) goto done;
        }
        continue;
    key:
        if (at >= n || b[at] != '"') return false;
        {
            bool escaped = false;
            at++;
            if (!string_rest(b, n, &at, &escaped)) return false;
            if (escaped) keys_escaped = true;
        }
        if (skip_space(b, n, &at, &newlines)) spaced = true;
        if (at >= n || b[at] != ':') return false;
        at++;
        if (skip_space(b, n, &at, &newlines)) spaced = true;
    }
done:
    out->end = at;
    out->newlines = newlines;
    out->spaced = spaced;
    out->keys_escaped = keys_escaped;
    out->escaped = false;
    return true;
}
