/* A tiny reader for the conformance vectors' JSON lines (conformance/README.md), C99, no
 * dependencies: it finds the members of a JSON object and hands back each value's raw text, so
 * that codec metadata reaches the implementation under test exactly as written (numbers such as
 * 9007199254740993 or 1e-50 are never re-formatted through a double). Not a validator: the
 * vectors are well-formed by construction.
 *
 *   jsonl_span v;
 *   if (jsonl_member(line, line + len, "codecs", &v)) ... v.begin .. v.end is the raw text
 */
#ifndef ZCAST_CONFORMANCE_JSONL_H_
#define ZCAST_CONFORMANCE_JSONL_H_

#include <stddef.h>
#include <string.h>

typedef struct jsonl_span {
  const char* begin;
  const char* end; /* one past the last character */
} jsonl_span;

static inline const char* jsonl_skip_ws(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  return p;
}

/* One past the end of the JSON value starting at p (NULL if malformed). */
static inline const char* jsonl_skip_value(const char* p, const char* end) {
  int depth = 0;
  p = jsonl_skip_ws(p, end);
  do {
    if (p >= end) return NULL;
    if (*p == '"') {
      for (++p; p < end && *p != '"'; ++p) {
        if (*p == '\\') ++p;
      }
      if (p >= end) return NULL;
      ++p;
    } else if (*p == '{' || *p == '[') {
      ++depth;
      ++p;
    } else if (*p == '}' || *p == ']') {
      --depth;
      ++p;
    } else if (depth > 0) {
      ++p; /* ',', ':', whitespace, literals inside a container */
    } else {
      while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') ++p;
    }
  } while (depth > 0);
  return p;
}

/* Finds member `key` of the object spanning [p, end); 1 and *out on success, 0 if absent. */
static inline int jsonl_member(const char* p, const char* end, const char* key, jsonl_span* out) {
  size_t key_len = strlen(key);
  p = jsonl_skip_ws(p, end);
  if (p >= end || *p != '{') return 0;
  ++p;
  for (;;) {
    const char* k;
    const char* k_end;
    const char* v;
    p = jsonl_skip_ws(p, end);
    if (p >= end || *p != '"') return 0;
    k = p + 1;
    p = jsonl_skip_value(p, end);
    if (!p) return 0;
    k_end = p - 1; /* the closing quote */
    p = jsonl_skip_ws(p, end);
    if (p >= end || *p != ':') return 0;
    v = jsonl_skip_ws(p + 1, end);
    p = jsonl_skip_value(v, end);
    if (!p) return 0;
    if ((size_t)(k_end - k) == key_len && memcmp(k, key, key_len) == 0) {
      out->begin = v;
      out->end = p;
      return 1;
    }
    p = jsonl_skip_ws(p, end);
    if (p >= end || *p != ',') return 0;
    ++p;
  }
}

/* The contents of a JSON string value without its quotes (the vectors' strings have no
 * escapes); 0 if the span is not a string. */
static inline int jsonl_string(jsonl_span v, jsonl_span* out) {
  if (v.end - v.begin < 2 || *v.begin != '"' || v.end[-1] != '"') return 0;
  out->begin = v.begin + 1;
  out->end = v.end - 1;
  return 1;
}

static inline int jsonl_equals(jsonl_span v, const char* text) {
  size_t n = strlen(text);
  return (size_t)(v.end - v.begin) == n && memcmp(v.begin, text, n) == 0;
}

#endif /* ZCAST_CONFORMANCE_JSONL_H_ */
