/* read_chunk: decode one chunk of a Zarr v3 array through zcast's C API (C99).
 *
 *   zcast_read_chunk ZARR_JSON CHUNK_FILE [OUT_FILE]
 *
 * ZARR_JSON is the array's zarr.json; CHUNK_FILE holds the bytes that the array's `bytes` codec
 * produced for one chunk. The array -> array codecs in front of `bytes` (scale_offset, cast_value,
 * numcodecs.fixedscaleoffset) are decoded by zcast's chain; the `bytes` codec is handled here (a
 * chunk of the other byte order is swapped). Compressors after `bytes` are not: decompress the
 * chunk file first (for example `zstd -d` or `gzip -d`). Prints a summary and the first values;
 * with OUT_FILE, also writes all decoded elements there (the array's data type, native-endian).
 *
 * This is the path a C/C++ reader such as GDAL takes: read the metadata once, build the chain
 * once, then per chunk: undo the bytes -> bytes codecs, undo `bytes`, zcast_chain_decode.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zcast/zcast.h"

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
  unsigned char *meta = NULL, *chunk = NULL, *decoded = NULL;
  zcast_chain* chain = NULL;
  const char* next;
  int big_endian, rc = 1;

  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: %s ZARR_JSON CHUNK_FILE [OUT_FILE]\n", argv[0]);
    return 2;
  }
  meta = read_file(argv[1], &meta_size);
  if (!meta) { fprintf(stderr, "cannot read %s\n", argv[1]); goto done; }
  chunk = read_file(argv[2], &chunk_size);
  if (!chunk) { fprintf(stderr, "cannot read %s\n", argv[2]); goto done; }

  if (zcast_chain_create((const char*)meta, &chain) != ZCAST_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], zcast_last_error());
    goto done;
  }
  /* The chain stops at the first codec it does not own: it must be `bytes` here. */
  next = zcast_chain_next_codec(chain, &index);
  if (!next || (strcmp(next, "\"bytes\"") != 0 && !strstr(next, "\"name\":\"bytes\""))) {
    fprintf(stderr, "codec %lu is %s; this example reads chunks whose array -> bytes codec is "
                    "\"bytes\"\n", (unsigned long)index, next ? next : "missing");
    goto done;
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
    fclose(out);
  }
  rc = 0;

done:
  zcast_chain_destroy(chain);
  free(decoded);
  free(chunk);
  free(meta);
  return rc;
}
