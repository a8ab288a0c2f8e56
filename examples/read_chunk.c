/* read_chunk: decode one chunk of a Zarr v3 array through zcast's C API (C99).
 *
 *   zcast_read_chunk ZARR_JSON CHUNK_FILE [OUT_FILE]
 *
 * ZARR_JSON is the array's zarr.json; CHUNK_FILE is one chunk as stored (for the default chunk
 * key encoding, ARRAY_DIR/c/0/0 and so on). Prints a summary and the first values; with
 * OUT_FILE, also writes all decoded elements there as raw binary (the array's data type,
 * native-endian, C order, the whole chunk shape: a partial edge chunk is stored padded).
 *
 * This is the path a C/C++ reader such as GDAL takes: read the metadata once, build the chain
 * once (zcast_chain_create), then per chunk undo what the chain does not own, last codec first:
 *
 *   gzip      inflated with zlib (when the example was built with it: CMake finds ZLIB);
 *   bytes     the element byte order (a chunk of the other byte order is swapped);
 *   the leading array -> array codecs (scale_offset, cast_value, numcodecs.fixedscaleoffset):
 *             zcast_chain_decode, all of them in one pass.
 *
 * Other compressors and sharding are outside this example: it names the codec and stops.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zcast/zcast.h"

#ifdef ZCAST_HAVE_ZLIB
#include <zlib.h>
#endif

/* Reads a whole file; returns NULL on failure. */
static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  unsigned char* data = (unsigned char*)malloc(cap + 1);
  while (data) {
    size_t got = fread(data + len, 1, cap - len, f);
    len += got;
    if (len < cap) break;
    unsigned char* bigger = (unsigned char*)realloc(data, 2 * cap + 1);
    if (!bigger) { free(data); data = NULL; break; }
    data = bigger;
    cap *= 2;
  }
  if (data && ferror(f)) { free(data); data = NULL; }
  fclose(f);
  if (data) {
    data[len] = 0; /* zarr.json is used as a C string */
    *size = len;
  }
  return data;
}

static int host_is_little_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

static void swap_elements(unsigned char* p, size_t n, size_t size) {
  size_t i, j;
  for (i = 0; i < n; ++i, p += size) {
    for (j = 0; j < size / 2; ++j) {
      unsigned char t = p[j];
      p[j] = p[size - 1 - j];
      p[size - 1 - j] = t;
    }
  }
}

/* Splits a compact JSON array (as zcast_chain_remaining_codecs returns it) into its top-level
 * elements: starts[k] and lens[k] delimit element k in `json`. Returns the number of elements,
 * or -1 if there are more than `max` or the text is not an array. */
static int split_json_array(const char* json, const char** starts, size_t* lens, int max) {
  int count = 0, depth = 0, in_string = 0;
  const char* p = json;
  const char* start = NULL;
  if (*p != '[') return -1;
  for (++p; *p; ++p) {
    char c = *p;
    if (in_string) {
      if (c == '\\' && p[1]) ++p;
      else if (c == '"') in_string = 0;
      continue;
    }
    if (!start && c != ',' && c != ']') start = p;
    if (c == '"') in_string = 1;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || (c == ']' && depth > 0)) --depth;
    else if ((c == ',' || c == ']') && depth == 0) {
      if (start) {
        if (count == max) return -1;
        starts[count] = start;
        lens[count] = (size_t)(p - start);
        ++count;
        start = NULL;
      }
      if (c == ']') return count;
    }
  }
  return -1;
}

/* True when the codec metadata `codec` (len bytes of compact JSON) is the codec `name`, written
 * either as {"name":"NAME",...} or as the bare string "NAME". */
static int codec_is(const char* codec, size_t len, const char* name) {
  char object[64], bare[64];
  size_t n;
  snprintf(object, sizeof object, "{\"name\":\"%s\"", name);
  snprintf(bare, sizeof bare, "\"%s\"", name);
  n = strlen(object);
  if (len >= n && strncmp(codec, object, n) == 0 && (codec[n] == ',' || codec[n] == '}')) return 1;
  n = strlen(bare);
  return len == n && strncmp(codec, bare, n) == 0;
}

#ifdef ZCAST_HAVE_ZLIB
/* Inflates a gzip stream (one or more members, as the gzip codec writes them). Returns a new
 * buffer (free it) and its size, or NULL with a message on stderr. */
static unsigned char* gunzip(const unsigned char* in, size_t in_size, size_t* out_size) {
  z_stream z;
  size_t cap = 4 * in_size + 4096, len = 0;
  unsigned char* out = (unsigned char*)malloc(cap);
  int rc = Z_OK;
  if (!out) return NULL;
  memset(&z, 0, sizeof z);
  if (in_size > (size_t)(uInt)-1 || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    fprintf(stderr, "gzip: cannot start inflating %lu bytes\n", (unsigned long)in_size);
    free(out);
    return NULL;
  }
  z.next_in = (Bytef*)in;
  z.avail_in = (uInt)in_size;
  for (;;) {
    if (len == cap) {
      unsigned char* bigger = (unsigned char*)realloc(out, 2 * cap);
      if (!bigger) { rc = Z_MEM_ERROR; break; }
      out = bigger;
      cap *= 2;
    }
    z.next_out = out + len;
    z.avail_out = (uInt)(cap - len > (size_t)(uInt)-1 ? (size_t)(uInt)-1 : cap - len);
    {
      uInt before = z.avail_out;
      rc = inflate(&z, Z_NO_FLUSH);
      len += before - z.avail_out;
    }
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      rc = inflateReset(&z); /* another gzip member follows */
      if (rc != Z_OK) break;
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) { rc = Z_DATA_ERROR; break; } /* truncated */
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END && rc != Z_OK) {
    fprintf(stderr, "gzip: %s\n", rc == Z_MEM_ERROR ? "out of memory"
                                   : z.msg ? z.msg : "corrupt or truncated stream");
    free(out);
    return NULL;
  }
  *out_size = len;
  return out;
}
#endif

/* Prints element i of a buffer of `type_json` ("\"float64\"" ...): common types as numbers, the
 * others as their raw bits in hex. */
static void print_element(const char* type_json, const unsigned char* p, size_t size) {
  if (strcmp(type_json, "\"float64\"") == 0) { double v; memcpy(&v, p, 8); printf("%.17g", v); }
  else if (strcmp(type_json, "\"float32\"") == 0) { float v; memcpy(&v, p, 4); printf("%.9g", (double)v); }
  else if (strcmp(type_json, "\"int8\"") == 0) { int8_t v; memcpy(&v, p, 1); printf("%d", v); }
  else if (strcmp(type_json, "\"int16\"") == 0) { int16_t v; memcpy(&v, p, 2); printf("%d", v); }
  else if (strcmp(type_json, "\"int32\"") == 0) { int32_t v; memcpy(&v, p, 4); printf("%ld", (long)v); }
  else if (strcmp(type_json, "\"int64\"") == 0) { int64_t v; memcpy(&v, p, 8); printf("%lld", (long long)v); }
  else if (strcmp(type_json, "\"uint8\"") == 0) { printf("%u", p[0]); }
  else if (strcmp(type_json, "\"uint16\"") == 0) { uint16_t v; memcpy(&v, p, 2); printf("%u", v); }
  else if (strcmp(type_json, "\"uint32\"") == 0) { uint32_t v; memcpy(&v, p, 4); printf("%lu", (unsigned long)v); }
  else if (strcmp(type_json, "\"uint64\"") == 0) { uint64_t v; memcpy(&v, p, 8); printf("%llu", (unsigned long long)v); }
  else {
    size_t k;
    printf("0x");
    for (k = size; k-- > 0;) printf("%02x", host_is_little_endian() ? p[k] : p[size - 1 - k]);
  }
}

int main(int argc, char** argv) {
  size_t meta_size = 0, chunk_size = 0, index = 0, n, enc_size, dec_size, i;
  size_t stored_size = 0, lens[8];
  unsigned char *meta = NULL, *chunk = NULL, *decoded = NULL;
  zcast_chain* chain = NULL;
  const char *next, *starts[8];
  const char* compressor = "none";
  int big_endian, n_rest, rc = 1;

  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: %s ZARR_JSON CHUNK_FILE [OUT_FILE]\n", argv[0]);
    return 2;
  }
  meta = read_file(argv[1], &meta_size);
  if (!meta) { fprintf(stderr, "cannot read %s\n", argv[1]); goto done; }
  chunk = read_file(argv[2], &chunk_size);
  if (!chunk) { fprintf(stderr, "cannot read %s\n", argv[2]); goto done; }
  stored_size = chunk_size;

  if (zcast_chain_create((const char*)meta, &chain) != ZCAST_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], zcast_last_error());
    goto done;
  }
  /* The chain stops at the first codec it does not own: it must be `bytes` here, followed by at
   * most one compressor this example knows (gzip). */
  next = zcast_chain_next_codec(chain, &index);
  n_rest = split_json_array(zcast_chain_remaining_codecs(chain), starts, lens, 8);
  if (n_rest < 0) {
    fprintf(stderr, "%s: more codecs after the chain than this example follows\n", argv[1]);
    goto done;
  }
  if (!next || n_rest < 1 || !codec_is(starts[0], lens[0], "bytes")) {
    fprintf(stderr, "codec %lu is %s; this example reads chunks whose array -> bytes codec is "
                    "\"bytes\"\n", (unsigned long)index, next ? next : "missing");
    goto done;
  }
  if (n_rest > 2 || (n_rest == 2 && !codec_is(starts[1], lens[1], "gzip"))) {
    int bad = codec_is(starts[1], lens[1], "gzip") ? 2 : 1;
    fprintf(stderr, "codec %lu is %.*s; this example undoes only gzip after \"bytes\"\n",
            (unsigned long)index + bad, (int)lens[bad], starts[bad]);
    goto done;
  }
  if (n_rest == 2) {
#ifdef ZCAST_HAVE_ZLIB
    size_t raw_size = 0;
    unsigned char* raw = gunzip(chunk, chunk_size, &raw_size);
    if (!raw) {
      fprintf(stderr, "%s: gzip codec %lu failed\n", argv[2], (unsigned long)index + 1);
      goto done;
    }
    free(chunk);
    chunk = raw;
    chunk_size = raw_size;
    compressor = "gzip";
#else
    fprintf(stderr, "%s: codec %lu is gzip, but this build of the example has no zlib "
                    "(install zlib1g-dev and configure again, or gunzip the chunk by hand)\n",
            argv[2], (unsigned long)index + 1);
    goto done;
#endif
  }
  /* zcast_chain_next_codec returns compact JSON, so the endian member reads as below; the
   * default is little. */
  big_endian = strstr(next, "\"endian\":\"big\"") != NULL;

  enc_size = zcast_chain_encoded_element_size(chain);
  dec_size = zcast_chain_decoded_element_size(chain);
  if (chunk_size % enc_size != 0) {
    fprintf(stderr, "%s: %lu bytes is not a whole number of %s elements\n", argv[2],
            (unsigned long)chunk_size, zcast_chain_encoded_data_type(chain));
    goto done;
  }
  n = chunk_size / enc_size;
  if (enc_size > 1 && big_endian == host_is_little_endian()) swap_elements(chunk, n, enc_size);

  decoded = (unsigned char*)malloc(n * dec_size + 1);
  if (!decoded) { fprintf(stderr, "out of memory\n"); goto done; }
  if (zcast_chain_decode(chain, chunk, n, decoded) != ZCAST_OK) {
    fprintf(stderr, "%s: %s\n", argv[2], zcast_last_error());
    goto done;
  }

  printf("array:   %s\n", zcast_chain_decoded_data_type(chain));
  printf("chunk:   %lu bytes stored, compressor %s\n", (unsigned long)stored_size, compressor);
  printf("stored:  %lu x %s (%s-endian), fill value %s, codec %lu is %s\n", (unsigned long)n,
         zcast_chain_encoded_data_type(chain), big_endian ? "big" : "little",
         zcast_chain_encoded_fill_value(chain) ? zcast_chain_encoded_fill_value(chain) : "none",
         (unsigned long)index, next);
  for (i = 0; i < n && i < 32; ++i) {
    printf("[%lu] ", (unsigned long)i);
    print_element(zcast_chain_decoded_data_type(chain), decoded + i * dec_size, dec_size);
    printf("\n");
  }
  if (n > 32) printf("... %lu more\n", (unsigned long)(n - 32));

  if (argc == 4) {
    FILE* out = fopen(argv[3], "wb");
    if (!out || fwrite(decoded, dec_size, n, out) != n) {
      fprintf(stderr, "cannot write %s\n", argv[3]);
      if (out) fclose(out);
      goto done;
    }
    if (fclose(out) != 0) { fprintf(stderr, "cannot write %s\n", argv[3]); goto done; }
  }
  rc = 0;

done:
  zcast_chain_destroy(chain);
  free(decoded);
  free(chunk);
  free(meta);
  return rc;
}
