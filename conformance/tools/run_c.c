/* zcast_conformance_run_c: runs the conformance vectors (conformance/README.md) through zcast's C
 * API (include/zcast/zcast.h) and prints cases run / passed / failed by category, with the first
 * failing case of each category. Exit status 0 when every case passes, 1 otherwise, 2 on a usage
 * or I/O error.
 *
 *   zcast_conformance_run_c DIR [DIR_OR_FILE ...]
 *
 * A template for other C and C++ implementations: replace run_case()'s four zcast calls (create
 * the chain from the case's codecs, data type and fill value; encode or decode; read the failing
 * element's index; destroy) with your own. Everything else (finding the .jsonl files, reading a
 * line, hex, comparing, the table) is independent of zcast. POSIX (opendir) and C99. The
 * comparison is exact, as zcast's own results must be; another implementation may let an
 * expected NaN match any NaN of the output type outside the scalar-map cases (README.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jsonl.h"
#include "zcast/zcast.h"

enum { kMaxCategories = 16 };

typedef struct category_stats {
  char name[32];
  long run, passed, failed;
  char first_failure[512];
} category_stats;

static category_stats g_stats[kMaxCategories];
static int g_num_stats;

static category_stats* stats_for(jsonl_span name) {
  size_t n = (size_t)(name.end - name.begin);
  int i;
  if (n >= sizeof g_stats[0].name) n = sizeof g_stats[0].name - 1;
  for (i = 0; i < g_num_stats; ++i) {
    if (strlen(g_stats[i].name) == n && memcmp(g_stats[i].name, name.begin, n) == 0) return &g_stats[i];
  }
  if (g_num_stats == kMaxCategories) return &g_stats[kMaxCategories - 1];
  memcpy(g_stats[g_num_stats].name, name.begin, n);
  return &g_stats[g_num_stats++];
}

static char* copy_span(jsonl_span v) {
  size_t n = (size_t)(v.end - v.begin);
  char* s = malloc(n + 1);
  if (!s) exit(2);
  memcpy(s, v.begin, n);
  s[n] = 0;
  return s;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Hex text -> bytes (malloc'd, at least 1 byte); *n_out bytes. */
static unsigned char* from_hex(jsonl_span hex, size_t* n_out) {
  size_t n = (size_t)(hex.end - hex.begin) / 2, i;
  unsigned char* b = malloc(n + 1);
  if (!b) exit(2);
  for (i = 0; i < n; ++i) {
    b[i] = (unsigned char)(hex_value(hex.begin[2 * i]) << 4 | hex_value(hex.begin[2 * i + 1]));
  }
  *n_out = n;
  return b;
}

/* The vectors are little-endian; zcast's buffers are native-endian. */
static void to_native(unsigned char* b, size_t n, size_t size) {
  const uint16_t probe = 1;
  size_t i, j;
  if (*(const unsigned char*)&probe == 1 || size == 1) return;
  for (i = 0; i + size <= n; i += size) {
    for (j = 0; j < size / 2; ++j) {
      unsigned char t = b[i + j];
      b[i + j] = b[i + size - 1 - j];
      b[i + size - 1 - j] = t;
    }
  }
}

/* What an implementation did with one case: "ok <hex>", "cast-failure <index>" or
 * "invalid-metadata" (written into got, at most got_size bytes). */
static void run_case(const char* codecs, const char* data_type, const char* fill, int decode,
                     unsigned char* in, size_t in_bytes, char* got, size_t got_size,
                     char** encoded_fill) {
  /* The cases of one configuration are adjacent: keep the last chain (binding builds kernel
   * tables, 65536 entries for a 16-bit source). */
  static zcast_chain* chain = NULL;
  static zcast_status create_status;
  static char create_error[512];
  static char* key = NULL;
  size_t in_size, out_size, n, i;
  unsigned char* out;
  zcast_status st;
  size_t key_len = strlen(codecs) + strlen(data_type) + (fill ? strlen(fill) : 4) + 3;
  char* this_key = malloc(key_len);
  if (!this_key) exit(2);
  snprintf(this_key, key_len, "%s\n%s\n%s", codecs, data_type, fill ? fill : "null");
  if (!key || strcmp(key, this_key) != 0) {
    zcast_chain_destroy(chain);
    chain = NULL;
    create_status = zcast_chain_create_from_codecs(codecs, data_type, fill, &chain);
    snprintf(create_error, sizeof create_error, "%s", zcast_last_error());
    free(key);
    key = this_key;
  } else {
    free(this_key);
  }
  *encoded_fill = NULL;
  if (create_status != ZCAST_OK) {
    if (create_status == ZCAST_INVALID_METADATA) snprintf(got, got_size, "invalid-metadata");
    else snprintf(got, got_size, "status %d: %s", (int)create_status, create_error);
    return;
  }
  in_size = decode ? zcast_chain_encoded_element_size(chain) : zcast_chain_decoded_element_size(chain);
  out_size = decode ? zcast_chain_decoded_element_size(chain) : zcast_chain_encoded_element_size(chain);
  n = in_bytes / in_size;
  to_native(in, in_bytes, in_size);
  out = malloc(n * out_size + 1);
  if (!out) exit(2);
  st = decode ? zcast_chain_decode(chain, in, n, out) : zcast_chain_encode(chain, in, n, out);
  if (st == ZCAST_OK) {
    size_t k = (size_t)snprintf(got, got_size, "ok ");
    const char* fill_json = zcast_chain_encoded_fill_value(chain);
    to_native(out, n * out_size, out_size);
    for (i = 0; i < n * out_size && k + 3 < got_size; ++i) k += (size_t)snprintf(got + k, 3, "%02x", out[i]);
    if (fill_json) *encoded_fill = strcpy(malloc(strlen(fill_json) + 1), fill_json);
  } else if (st == ZCAST_CAST_FAILED && strncmp(zcast_last_error(), "element ", 8) == 0) {
    snprintf(got, got_size, "cast-failure %lu", strtoul(zcast_last_error() + 8, NULL, 10));
  } else {
    snprintf(got, got_size, "status %d: %s", (int)st, zcast_last_error());
  }
  free(out);
}

static long g_cases, g_failed;

static void run_line(const char* line, size_t len, const char* file, long line_no) {
  const char* end = line + len;
  jsonl_span id, category, data_type, fill, codecs, direction, input, expected, error, v;
  char want[1 << 16], got[1 << 16];
  char* codecs_s;
  char* type_s;
  char* fill_s = NULL;
  char* encoded_fill = NULL;
  unsigned char* in;
  size_t in_bytes;
  category_stats* s;
  int pass;
  if (!jsonl_member(line, end, "id", &id) || !jsonl_string(id, &id) ||
      !jsonl_member(line, end, "category", &category) ||
      !jsonl_member(line, end, "data_type", &data_type) ||
      !jsonl_member(line, end, "fill_value", &fill) || !jsonl_member(line, end, "codecs", &codecs) ||
      !jsonl_member(line, end, "direction", &direction) || !jsonl_member(line, end, "input", &input) ||
      !jsonl_string(input, &input) || !jsonl_string(category, &category)) {
    fprintf(stderr, "%s:%ld: not a conformance case\n", file, line_no);
    exit(2);
  }
  if (jsonl_member(line, end, "expected", &expected) && jsonl_string(expected, &expected)) {
    snprintf(want, sizeof want, "ok %.*s", (int)(expected.end - expected.begin), expected.begin);
  } else if (jsonl_member(line, end, "error", &error) && jsonl_member(error.begin, error.end, "class", &v)) {
    if (jsonl_equals(v, "\"invalid-metadata\"")) {
      snprintf(want, sizeof want, "invalid-metadata");
    } else {
      jsonl_member(error.begin, error.end, "index", &v);
      snprintf(want, sizeof want, "cast-failure %.*s", (int)(v.end - v.begin), v.begin);
    }
  } else {
    fprintf(stderr, "%s:%ld: no expected output or error\n", file, line_no);
    exit(2);
  }
  codecs_s = copy_span(codecs);
  type_s = copy_span(data_type);
  if (!jsonl_equals(fill, "null")) fill_s = copy_span(fill);
  in = from_hex(input, &in_bytes);
  run_case(codecs_s, type_s, fill_s, jsonl_equals(direction, "\"decode\""), in, in_bytes, got,
           sizeof got, &encoded_fill);
  pass = strcmp(want, got) == 0;
  /* The encoded fill value (R9) is part of the expectation when the case states it. */
  if (pass && jsonl_member(line, end, "encoded_fill_value", &v)) {
    pass = encoded_fill && jsonl_equals(v, encoded_fill);
    if (!pass) snprintf(got + strlen(got), 64, " (encoded fill %s)", encoded_fill ? encoded_fill : "none");
  }
  s = stats_for(category);
  ++s->run;
  ++g_cases;
  if (pass) {
    ++s->passed;
  } else {
    ++s->failed;
    ++g_failed;
    if (!s->first_failure[0]) {
      int shown = (int)(input.end - input.begin > 100 ? 100 : input.end - input.begin);
      snprintf(s->first_failure, sizeof s->first_failure,
               "%.*s\n    input    %.*s\n    expected %.100s\n    got      %.100s",
               (int)(id.end - id.begin), id.begin, shown, input.begin, want, got);
    }
  }
  free(codecs_s);
  free(type_s);
  free(fill_s);
  free(encoded_fill);
  free(in);
}

static void run_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* line = NULL;
  size_t cap = 0;
  ssize_t len;
  long line_no = 0;
  if (!f) {
    fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
    exit(2);
  }
  while ((len = getline(&line, &cap, f)) > 0) {
    ++line_no;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) --len;
    if (len) run_line(line, (size_t)len, path, line_no);
  }
  free(line);
  fclose(f);
}

static int compare_names(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* A directory's .jsonl files, recursively, in sorted order (the report is then reproducible). */
static void run_path(const char* path) {
  struct stat st;
  DIR* d;
  struct dirent* e;
  char** names = NULL;
  size_t n = 0, i;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
    exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    run_file(path);
    return;
  }
  d = opendir(path);
  if (!d) exit(2);
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    char* full;
    if (e->d_name[0] == '.') continue;
    full = malloc(strlen(path) + len + 2);
    sprintf(full, "%s/%s", path, e->d_name);
    int is_jsonl = len > 6 && strcmp(e->d_name + len - 6, ".jsonl") == 0;
    if (stat(full, &st) == 0 && (S_ISDIR(st.st_mode) || is_jsonl)) {
      names = realloc(names, (n + 1) * sizeof *names);
      names[n++] = full;
    } else {
      free(full);
    }
  }
  closedir(d);
  qsort(names, n, sizeof *names, compare_names);
  for (i = 0; i < n; ++i) {
    run_path(names[i]);
    free(names[i]);
  }
  free(names);
}

int main(int argc, char** argv) {
  int i;
  if (argc < 2) {
    fprintf(stderr, "usage: %s VECTOR_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  for (i = 1; i < argc; ++i) run_path(argv[i]);
  printf("zcast %s through the C API: %ld cases, %ld passed, %ld failed\n", zcast_version(), g_cases,
         g_cases - g_failed, g_failed);
  printf("%-12s %8s %8s %8s\n", "category", "run", "passed", "failed");
  for (i = 0; i < g_num_stats; ++i) {
    printf("%-12s %8ld %8ld %8ld\n", g_stats[i].name, g_stats[i].run, g_stats[i].passed, g_stats[i].failed);
  }
  for (i = 0; i < g_num_stats; ++i) {
    if (g_stats[i].first_failure[0]) {
      printf("first %s failure: %s\n", g_stats[i].name, g_stats[i].first_failure);
    }
  }
  return g_failed ? 1 : (g_cases ? 0 : 1);
}
