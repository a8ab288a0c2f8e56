/* zcast_read_chunk: read a Zarr v3 array (or one chunk of it) through zcast's C API.
 *
 *   zcast_read_chunk [--region R] [--threads N] [--timing] ARRAY_DIR OUT
 *       Writes the whole array (or the region R, e.g. 0:100,200:300 - one start:stop per
 *       dimension, ':' for all of it) to OUT: raw, native-endian, C order, the array's data type.
 *       OUT '-' is standard output; any other OUT must be a regular file or not exist yet.
 *       Chunks and shards never written read as the fill value; edge chunks are cut to the
 *       array. --threads decodes that many chunks at once; --timing prints where the time went
 *       (it first writes the whole output buffer once, to time its page faults on their own).
 *   zcast_read_chunk ZARR_JSON CHUNK_FILE [OUT_FILE]
 *       One chunk as stored: prints a summary and its first values; with OUT_FILE, writes the
 *       whole chunk shape (a partial edge chunk is stored padded). With OUT_FILE '-' the chunk
 *       goes to standard output and the summary to standard error.
 *
 * Everything the array's metadata names is undone in order (reader.h lists the files): a shard's
 * index (its crc32c checked), the compressors (blosc, zstd, gzip), bytes (either endian), and the
 * array -> array codecs (scale_offset, cast_value...) by zcast_chain_decode. A bad chunk stops the
 * read with a message naming the file, the chunk and the reason; OUT is then not written (the
 * data goes to OUT.tmp, renamed into place only when complete). Exit 0, 1 on bad data, 2 on bad
 * usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader.h"

typedef unsigned long long ull;

/* 0 if OUT can be written: '-', a path that does not exist yet, or a regular file; else -1 with
 * a message. Checked before reading, and again by write_output. The atomic write replaces OUT
 * by renaming a sibling over it, which on a device (/dev/stdout, /dev/null), a FIFO or a
 * directory would replace the node itself instead of writing into it. */
static int check_output(const char* path) {
  struct stat st;
  if (strcmp(path, "-") == 0) return 0;
  if (stat(path, &st) != 0) {
    if (errno == ENOENT) return 0;
    fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    fprintf(stderr, "%s: not a regular file (a %s); OUT is a regular file, or - for standard "
            "output\n", path, S_ISDIR(st.st_mode) ? "directory" : S_ISCHR(st.st_mode) ||
            S_ISBLK(st.st_mode) ? "device" : S_ISFIFO(st.st_mode) ? "pipe" : "special file");
    return -1;
  }
  return 0;
}

/* Writes `size` bytes to OUT: to standard output for '-', else atomically (path.tmp, then rename)
 * into a regular file. 0 or -1 (message printed). */
static int write_output(const char* path, const void* data, size_t size) {
  char tmp[4200];
  FILE* f;
  int ok;
  if (strcmp(path, "-") == 0) {
    ok = fwrite(data, 1, size, stdout) == size;
    if (fflush(stdout) != 0) ok = 0;
    if (!ok) fprintf(stderr, "standard output: cannot write: %s\n", strerror(errno));
    return ok ? 0 : -1;
  }
  if (check_output(path) != 0) return -1;
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  f = fopen(tmp, "wb");
  ok = f != NULL;
  if (ok) ok = fwrite(data, 1, size, f) == size;
  if (f && fclose(f) != 0) ok = 0;
  if (ok && rename(tmp, path) != 0) ok = 0;
  if (!ok) {
    fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
    remove(tmp);
    return -1;
  }
  return 0;
}

/* Prints element p of a buffer of `type_json` to o: the common types as numbers (exactly: %.17g
 * and %.9g), the others as their raw bits in hex. */
static void print_element(FILE* o, const char* type_json, const unsigned char* p, size_t size) {
  if (strcmp(type_json, "\"float64\"") == 0) { double v; memcpy(&v, p, 8); fprintf(o, "%.17g", v); }
  else if (strcmp(type_json, "\"float32\"") == 0) { float v; memcpy(&v, p, 4); fprintf(o, "%.9g", (double)v); }
  else if (strcmp(type_json, "\"int8\"") == 0) { int8_t v; memcpy(&v, p, 1); fprintf(o, "%d", v); }
  else if (strcmp(type_json, "\"int16\"") == 0) { int16_t v; memcpy(&v, p, 2); fprintf(o, "%d", v); }
  else if (strcmp(type_json, "\"int32\"") == 0) { int32_t v; memcpy(&v, p, 4); fprintf(o, "%ld", (long)v); }
  else if (strcmp(type_json, "\"int64\"") == 0) { int64_t v; memcpy(&v, p, 8); fprintf(o, "%lld", (long long)v); }
  else if (strcmp(type_json, "\"uint8\"") == 0) { fprintf(o, "%u", p[0]); }
  else if (strcmp(type_json, "\"uint16\"") == 0) { uint16_t v; memcpy(&v, p, 2); fprintf(o, "%u", v); }
  else if (strcmp(type_json, "\"uint32\"") == 0) { uint32_t v; memcpy(&v, p, 4); fprintf(o, "%lu", (unsigned long)v); }
  else if (strcmp(type_json, "\"uint64\"") == 0) { uint64_t v; memcpy(&v, p, 8); fprintf(o, "%llu", (ull)v); }
  else {
    const uint16_t one = 1;
    unsigned char little;
    size_t k;
    memcpy(&little, &one, 1);
    fprintf(o, "0x");
    for (k = size; k-- > 0;) fprintf(o, "%02x", little ? p[k] : p[size - 1 - k]);
  }
}

/* The one-chunk form: decode CHUNK_FILE (its whole chunk shape) and describe it. */
static int read_one_chunk(const char* meta_path, const char* chunk_path, const char* out_path) {
  rd_array a;
  rd_timers timers = {0, 0, 0, 0};
  char err[RD_ERROR_SIZE], where[4400], compressors[128] = "none";
  size_t size = 0, n, i, used = 0;
  unsigned char *chunk = NULL, *decoded = NULL;
  const rd_level* top = &a.top;
  const rd_level* leaf;
  FILE* o = out_path && strcmp(out_path, "-") == 0 ? stderr : stdout;  /* the summary */
  int k, rc = 1;
  if (out_path && check_output(out_path) != 0) return 1;
  if (rd_array_open(meta_path, &a, err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  chunk = rd_read_file(chunk_path, &size);
  if (!chunk) { fprintf(stderr, "cannot read %s\n", chunk_path); goto done; }
  n = top->chunk_elements;
  decoded = (unsigned char*)malloc(n * top->dec_size + 1);
  if (!decoded) { fprintf(stderr, "out of memory\n"); goto done; }
  snprintf(where, sizeof where, "%s", chunk_path);
  if (rd_decode_chunk(top, chunk, size, where, decoded, &timers, err) != 0) {
    fprintf(stderr, "%s\n", err);
    goto done;
  }
  for (leaf = top; leaf->inner; leaf = leaf->inner) {}
  for (k = 0; k < leaf->n_compressors; ++k)
    used += (size_t)snprintf(compressors + used, sizeof compressors - used, "%s%s", k ? "+" : "",
                             rd_compressor_name(leaf->compressors[k]));
  fprintf(o, "array:   %s\n", top->dec_type);
  fprintf(o, "chunk:   %llu bytes stored, compressor %s%s\n", (ull)size, compressors,
          top->inner ? " (inside sharding_indexed)" : "");
  fprintf(o, "stored:  %llu x %s (%s-endian), fill value %s, codec %llu is %s\n", (ull)n,
          top->enc_type, top->big_endian ? "big" : "little",
          zcast_chain_encoded_fill_value(top->chain), (ull)top->codec_index, top->codec_desc);
  for (i = 0; i < n && i < 32; ++i) {
    fprintf(o, "[%llu] ", (ull)i);
    print_element(o, top->dec_type, decoded + i * top->dec_size, top->dec_size);
    fprintf(o, "\n");
  }
  if (n > 32) fprintf(o, "... %llu more\n", (ull)(n - 32));
  fflush(o);
  if (out_path && write_output(out_path, decoded, n * top->dec_size) != 0) goto done;
  rc = 0;
done:
  free(decoded);
  free(chunk);
  rd_array_close(&a);
  return rc;
}

/* "a:b,c:d" (one entry per dimension; ":" or "" for the whole extent) into box. */
static int parse_region(const char* text, const rd_array* a, rd_box* box) {
  const char* p = text;
  int d;
  for (d = 0; d < a->ndim; ++d) {
    char* end;
    uint64_t lo = 0, hi = a->shape[d];
    if (*p != ':' && *p != ',' && *p) { lo = strtoull(p, &end, 10); if (end == p) return -1; p = end; }
    if (*p == ':') {
      ++p;
      if (*p != ',' && *p) { hi = strtoull(p, &end, 10); if (end == p) return -1; p = end; }
    } else if (*p != ',' && *p) {
      return -1;
    }
    if (lo > hi || hi > a->shape[d]) return -1;
    box->start[d] = lo;
    box->count[d] = hi - lo;
    if (d < a->ndim - 1) { if (*p != ',') return -1; ++p; }
  }
  return *p ? -1 : 0;
}

/* Writes every page of the output buffer once (timed), so that --timing does not charge the
 * page faults of a fresh 482 MB buffer to whichever step happens to write it first. */
static int touch(unsigned char* out, size_t size, double* seconds) {
  double t = rd_now();
  memset(out, 0, size);
  *seconds = rd_now() - t;
  return 0;
}

static int usage(const char* argv0) {
  fprintf(stderr,
          "usage: %s [--region START:STOP,...] [--threads N] [--timing] ARRAY_DIR OUT\n"
          "       %s ZARR_JSON CHUNK_FILE [OUT_FILE]\n"
          "OUT or OUT_FILE - writes to standard output.\n", argv0, argv0);
  return 2;
}

int main(int argc, char** argv) {
  const char *region_text = NULL, *positional[3];
  int n_pos = 0, threads = 1, timing = 0, i, rc = 1;
  struct stat st;
  rd_array a;
  rd_box box;
  rd_timers timers = {0, 0, 0, 0};
  char err[RD_ERROR_SIZE];
  size_t elements = 1;
  unsigned char* out = NULL;
  double t0, t_read, t_write, t_touch = 0;
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--region") == 0 && i + 1 < argc) region_text = argv[++i];
    else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      char* end;
      threads = (int)strtol(argv[++i], &end, 10);
      if (*end || threads < 1 || threads > 64) {
        fprintf(stderr, "--threads takes 1 to 64, not %s\n", argv[i]);
        return 2;
      }
    } else if (strcmp(argv[i], "--timing") == 0) timing = 1;
    else if (argv[i][0] == '-' && argv[i][1] == '-') return usage(argv[0]);
    else if (n_pos < 3) positional[n_pos++] = argv[i];
    else return usage(argv[0]);
  }
  if (n_pos < 2) return usage(argv[0]);
  if (n_pos == 3 || stat(positional[0], &st) != 0 || !S_ISDIR(st.st_mode)) {
    if (region_text || threads != 1 || timing) {
      fprintf(stderr, "--region, --threads and --timing read a whole array: give ARRAY_DIR\n");
      return 2;
    }
    return read_one_chunk(positional[0], positional[1], n_pos == 3 ? positional[2] : NULL);
  }

  if (check_output(positional[1]) != 0) return 1;
  t0 = rd_now();
  if (rd_array_open(positional[0], &a, err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  for (i = 0; i < a.ndim; ++i) { box.start[i] = 0; box.count[i] = a.shape[i]; }
  if (region_text && parse_region(region_text, &a, &box) != 0) {
    fprintf(stderr, "--region %s: give START:STOP for each of the %d dimensions, inside the "
            "shape\n", region_text, a.ndim);
    rd_array_close(&a);
    return 2;
  }
  for (i = 0; i < a.ndim; ++i) {
    if (box.count[i] && elements > ((size_t)-1 >> 5) / box.count[i]) {
      fprintf(stderr, "%s: the region is too large for this reader\n", positional[0]);
      rd_array_close(&a);
      return 1;
    }
    elements *= (size_t)box.count[i];
  }
  out = (unsigned char*)malloc(elements * a.top.dec_size + 1);
  if (!out) {
    fprintf(stderr, "out of memory (%llu bytes)\n", (ull)(elements * a.top.dec_size));
  } else if ((timing && touch(out, elements * a.top.dec_size, &t_touch) != 0) ||
             rd_read_region(&a, &box, threads, out, &timers, err) != 0) {
    fprintf(stderr, "%s\n", err);
  } else {
    t_read = rd_now();
    rc = write_output(positional[1], out, elements * a.top.dec_size) == 0 ? 0 : 1;
    t_write = rd_now();
    if (timing && rc == 0) {
      double busy = timers.read + timers.decompress + timers.zcast + timers.other;
      if (busy <= 0) busy = 1e-9;
      fprintf(stderr, "timing: %llu elements of %s, %d thread(s): decode %.3f s wall (read "
              "%.3f s, decompress %.3f s, zcast %.3f s, other %.3f s summed over threads: "
              "%.0f%% / %.0f%% / %.0f%% / %.0f%%), including a first touch of the output of %.3f s, "
              "write OUT %.3f s\n",
              (ull)elements, a.top.dec_type, threads, t_read - t0, timers.read,
              timers.decompress, timers.zcast, timers.other, 100 * timers.read / busy,
              100 * timers.decompress / busy, 100 * timers.zcast / busy,
              100 * timers.other / busy, t_touch, t_write - t_read);
    }
  }
  free(out);
  rd_array_close(&a);
  return rc;
}
