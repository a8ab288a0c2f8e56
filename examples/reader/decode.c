/* Decoding: one chunk (decompress, bytes, zcast_chain_decode), a shard (its index, each inner
 * chunk, the fill value for the missing ones), and a region of the array, with worker threads.
 *
 * Chunks are independent, and zcast's codecs and chains are immutable (zcast.hpp: thread-safe;
 * zcast_last_error is per thread), so the workers share one rd_array and need no lock but the
 * one that hands out work. Every output element is written exactly once: by the chunk holding
 * it, or as the fill value when that chunk (or its shard) was never written. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reader.h"

typedef unsigned long long ull;

double rd_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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

/* ---- boxes: copy the part of a chunk inside the region, or fill it ---- */

/* The intersection of the chunk [origin, origin + shape) with `region`; 0 if empty. */
static int intersect(int ndim, const uint64_t* origin, const uint64_t* shape, const rd_box* region,
                     rd_box* out) {
  int d;
  for (d = 0; d < ndim; ++d) {
    uint64_t lo = origin[d] > region->start[d] ? origin[d] : region->start[d];
    uint64_t hi_c = origin[d] + shape[d], hi_r = region->start[d] + region->count[d];
    uint64_t hi = hi_c < hi_r ? hi_c : hi_r;
    if (hi <= lo) return 0;
    out->start[d] = lo;
    out->count[d] = hi - lo;
  }
  return 1;
}

/* Writes the box `part` of the region buffer `dst` (elements of `size` bytes): from the chunk
 * buffer `src` at `origin` of `shape` (src != NULL), decoding each row with `chain` on the way
 * when it is not NULL (src then holds encoded elements of `src_size` bytes), or with the element
 * `fill` (src == NULL). Rows of the last dimension are contiguous on both sides: one memcpy or
 * one zcast_chain_decode each. 0, or -1 when an element fails to decode (the caller reports it). */
static int write_box(int ndim, const rd_box* region, unsigned char* dst, const uint64_t* origin,
                     const uint64_t* shape, const unsigned char* src, size_t src_size,
                     const zcast_chain* chain, const unsigned char* fill, size_t size,
                     const rd_box* part) {
  uint64_t idx[RD_MAX_DIMS] = {0};
  size_t w = (size_t)part->count[ndim - 1], row = w * size, k;
  unsigned char* fill_row = NULL;
  int d, rc = 0;
  if (!src) {
    fill_row = (unsigned char*)malloc(row ? row : 1);
    if (!fill_row) abort();
    for (k = 0; fill && k < w; ++k) memcpy(fill_row + k * size, fill, size);
  }
  for (;;) {
    uint64_t doff = 0, soff = 0;
    for (d = 0; d < ndim; ++d) {
      uint64_t p = part->start[d] + (d < ndim - 1 ? idx[d] : 0);
      doff = doff * region->count[d] + (p - region->start[d]);
      soff = soff * shape[d] + (p - origin[d]);
    }
    if (!chain) {
      memcpy(dst + doff * size, src ? src + soff * size : fill_row, row);
    } else if (zcast_chain_decode(chain, src + soff * src_size, w, dst + doff * size) != ZCAST_OK) {
      rc = -1;
      break;
    }
    for (d = ndim - 2; d >= 0; --d) {
      if (++idx[d] < part->count[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
  free(fill_row);
  return rc;
}

/* A copy (chunk buffer -> region) or a fill: write_box without decoding. */
static void copy_box(int ndim, const rd_box* region, unsigned char* dst, const uint64_t* origin,
                     const uint64_t* shape, const unsigned char* src, const unsigned char* fill,
                     size_t size, const rd_box* part) {
  write_box(ndim, region, dst, origin, shape, src, size, NULL, fill, size, part);
}

/* ---- one shard's index ---- */

/* Reads and checks the index of a shard of `level`: entries[2k], entries[2k+1] are the offset
 * and size of inner chunk k (UINT64_MAX both when it was never written), each inside the shard
 * and outside the index. */
static int read_shard_index(const rd_level* level, const unsigned char* data, size_t size,
                            const char* where, uint64_t* entries, char* err) {
  size_t index_size = 16 * level->inner_count + (level->index_crc32c ? 4 : 0), k;
  const unsigned char* index;
  int b, little = !level->index_big_endian;
  if (size < index_size) {
    snprintf(err, RD_ERROR_SIZE, "%s: truncated shard: %llu bytes, less than its %llu-byte index",
             where, (ull)size, (ull)index_size);
    return -1;
  }
  index = level->index_at_end ? data + size - index_size : data;
  if (level->index_crc32c) {
    const unsigned char* c = index + index_size - 4;
    uint32_t stored = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
                      (uint32_t)c[3] << 24;
    uint32_t computed = rd_crc32c(index, index_size - 4);
    if (stored != computed) {
      snprintf(err, RD_ERROR_SIZE, "%s: shard index crc32c mismatch (stored 0x%08lx, computed "
               "0x%08lx): the shard is corrupt or truncated", where, (unsigned long)stored,
               (unsigned long)computed);
      return -1;
    }
  }
  for (k = 0; k < 2 * level->inner_count; ++k) {
    uint64_t v = 0;
    for (b = 0; b < 8; ++b) v |= (uint64_t)index[8 * k + (little ? b : 7 - b)] << (8 * b);
    entries[k] = v;
  }
  for (k = 0; k < level->inner_count; ++k) {
    uint64_t off = entries[2 * k], n = entries[2 * k + 1];
    uint64_t lo = level->index_at_end ? 0 : index_size;
    uint64_t hi = level->index_at_end ? size - index_size : size;
    if (off == UINT64_MAX && n == UINT64_MAX) continue;
    if (off < lo || off > hi || n > hi - off) {
      snprintf(err, RD_ERROR_SIZE, "%s: inner chunk %llu: bytes [%llu, +%llu) lie outside the "
               "shard's data (%llu bytes): the shard is corrupt or truncated", where, (ull)k,
               (ull)off, (ull)n, (ull)(hi - lo));
      return -1;
    }
  }
  return 0;
}

/* The grid position of inner chunk k (C order) as "(a, b)" text, and its origin in the shard. */
static void inner_position(const rd_level* level, size_t k, uint64_t* origin, char* text,
                           size_t text_size) {
  uint64_t pos[RD_MAX_DIMS];
  int d;
  size_t used = 0;
  for (d = level->ndim - 1; d >= 0; --d) {
    pos[d] = k % level->inner_per_shard[d];
    k /= level->inner_per_shard[d];
  }
  for (d = 0; d < level->ndim; ++d) {
    origin[d] = pos[d] * level->inner->chunk_shape[d];
    used += (size_t)snprintf(text + used, text_size - used, "%s%llu", d ? ", " : "(", (ull)pos[d]);
    if (used >= text_size) used = text_size - 1;
  }
  snprintf(text + used, text_size - used, ")");
}

/* Undoes the compressors (last first) and the bytes codec of a plain (unsharded) level: a new
 * buffer of the chunk's encoded elements, native-endian (free it), or NULL with `err`. Only the
 * first compressor's output size is known exactly (the chunk's elements); the others are bounded
 * (incompressible data grows a little). */
static unsigned char* undo_bytes(const rd_level* level, const unsigned char* data, size_t size,
                                 const char* where, rd_timers* timers, char* err) {
  size_t expected = level->chunk_elements * level->enc_size, cur_size = size;
  const unsigned char* in = data;
  unsigned char* cur = NULL;
  double t0 = rd_now(), t1;
  char e[RD_ERROR_SIZE];
  int k;
  for (k = level->n_compressors - 1; k >= 0; --k) {
    int exact = k == 0;
    size_t limit = exact ? expected : expected + expected / 8 + 65536, got = 0;
    unsigned char* next = rd_decompress(level->compressors[k], in, cur_size, limit, exact, &got, e);
    t1 = rd_now();
    timers->decompress += t1 - t0;
    t0 = t1;
    free(cur);
    cur = NULL;
    if (!next) {
      snprintf(err, RD_ERROR_SIZE, "%s: %s", where, e);
      return NULL;
    }
    cur = next;
    in = cur;
    cur_size = got;
  }
  if (cur_size != expected) {
    snprintf(err, RD_ERROR_SIZE, "%s: %llu bytes, expected %llu (%llu elements of %s): wrong "
             "element count", where, (ull)cur_size, (ull)expected, (ull)level->chunk_elements,
             level->enc_type);
    free(cur);
    return NULL;
  }
  if (!cur) { /* no compressor: a private copy to swap in place */
    cur = (unsigned char*)malloc(expected + 1);
    if (!cur) { snprintf(err, RD_ERROR_SIZE, "%s: out of memory", where); return NULL; }
    memcpy(cur, data, expected);
  }
  if (level->enc_size > 1 && level->big_endian == host_is_little_endian())
    swap_elements(cur, level->chunk_elements, level->enc_size);
  timers->other += rd_now() - t0;
  return cur;
}

/* ---- one chunk ---- */

int rd_decode_chunk(const rd_level* level, const unsigned char* data, size_t size,
                    const char* where, void* out, rd_timers* timers, char* err) {
  size_t expected = level->chunk_elements * level->enc_size;
  unsigned char* encoded = NULL;
  int k, rc = -1;
  double t0 = rd_now(), t1;

  if (level->inner) { /* a shard: decode each inner chunk into the shard's (encoded) buffer */
    uint64_t* entries = (uint64_t*)malloc(16 * level->inner_count + 1);
    unsigned char* inner_buf = (unsigned char*)malloc(level->inner->chunk_elements * level->inner->dec_size + 1);
    rd_box whole;
    size_t i;
    encoded = level->chain_owns_codecs ? (unsigned char*)malloc(expected + 1) : (unsigned char*)out;
    if (!entries || !inner_buf || !encoded) { snprintf(err, RD_ERROR_SIZE, "%s: out of memory", where); goto shard_done; }
    if (read_shard_index(level, data, size, where, entries, err) != 0) goto shard_done;
    for (k = 0; k < level->ndim; ++k) { whole.start[k] = 0; whole.count[k] = level->chunk_shape[k]; }
    for (i = 0; i < level->inner_count; ++i) {
      uint64_t origin[RD_MAX_DIMS];
      char pos[160], inner_where[RD_ERROR_SIZE];
      rd_box part;
      inner_position(level, i, origin, pos, sizeof pos);
      intersect(level->ndim, origin, level->inner->chunk_shape, &whole, &part);
      if (entries[2 * i] == UINT64_MAX) {
        copy_box(level->ndim, &whole, encoded, origin, level->inner->chunk_shape, NULL,
                 level->inner->dec_fill, level->inner->dec_size, &part);
        continue;
      }
      snprintf(inner_where, sizeof inner_where, "%s, inner chunk %s", where, pos);
      if (rd_decode_chunk(level->inner, data + entries[2 * i], (size_t)entries[2 * i + 1],
                          inner_where, inner_buf, timers, err) != 0)
        goto shard_done;
      t1 = rd_now();
      copy_box(level->ndim, &whole, encoded, origin, level->inner->chunk_shape, inner_buf, NULL,
               level->inner->dec_size, &part);
      timers->other += rd_now() - t1;
    }
    rc = 0;
  shard_done:
    free(entries);
    free(inner_buf);
    if (rc != 0) { if (encoded != out) free(encoded); return -1; }
    rc = -1;
    t0 = rd_now();
  } else {
    encoded = undo_bytes(level, data, size, where, timers, err);
    if (!encoded) return -1;
    t0 = rd_now();
  }
  /* The array -> array codecs, all in one pass. */
  if (!level->chain_owns_codecs) {
    if (encoded != out) memcpy(out, encoded, expected);
  } else if (zcast_chain_decode(level->chain, encoded, level->chunk_elements, out) != ZCAST_OK) {
    snprintf(err, RD_ERROR_SIZE, "%s: a value fails to decode: %s", where, zcast_last_error());
    goto done;
  }
  rc = 0;
done:
  if (level->chain_owns_codecs) timers->zcast += rd_now() - t0;
  else timers->other += rd_now() - t0;
  if (encoded != out) free(encoded);
  return rc;
}

/* ---- a region of the array, with worker threads ---- */

/* One piece of work: a chunk (or an inner chunk of a shard) and where its bytes are. */
typedef struct unit {
  const rd_level* level;
  uint64_t origin[RD_MAX_DIMS];   /* in array coordinates */
  const unsigned char* data;      /* the stored bytes (in a shard read by the main thread) */
  size_t size;
  int missing;                    /* never written: the fill value */
  char path[4300];                /* a chunk file for a worker to read (data == NULL) */
  char where[512];
} unit;

typedef struct pool {
  const rd_array* array;
  const rd_box* region;
  unsigned char* out;
  unit* units;
  size_t n_units, next;
  int failed;
  char err[RD_ERROR_SIZE];
  pthread_mutex_t lock;
} pool;

unsigned char* rd_read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  long n;
  unsigned char* data = NULL;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = (unsigned char*)malloc((size_t)n + 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) { free(data); data = NULL; errno = EIO; }
    if (data) {
      data[n] = 0; /* zarr.json is used as a C string */
      *size = (size_t)n;
    }
  }
  fclose(f);
  return data;
}

static void fail_pool(pool* p, const char* message) {
  pthread_mutex_lock(&p->lock);
  if (!p->failed) snprintf(p->err, sizeof p->err, "%s", message);
  p->failed = 1;
  pthread_mutex_unlock(&p->lock);
}

static int run_unit(pool* p, unit* u, rd_timers* timers) {
  const rd_level* level = u->level;
  int ndim = p->array->ndim;
  rd_box part;
  unsigned char* file = NULL;
  const unsigned char* data = u->data;
  size_t size = u->size;
  unsigned char* chunk = NULL;
  char err[RD_ERROR_SIZE];
  double t0 = rd_now();
  int missing = u->missing, rc = -1;
  if (!intersect(ndim, u->origin, level->chunk_shape, p->region, &part)) return 0;
  if (!data && !missing) {
    file = rd_read_file(u->path, &size);
    timers->read += rd_now() - t0;
    if (!file && errno != ENOENT) {
      snprintf(err, sizeof err, "%s: cannot read: %s", u->path, strerror(errno));
      fail_pool(p, err);
      return -1;
    }
    missing = !file;
    data = file;
  }
  t0 = rd_now();
  if (missing) {
    copy_box(ndim, p->region, p->out, u->origin, level->chunk_shape, NULL, level->dec_fill,
             level->dec_size, &part);
    timers->other += rd_now() - t0;
    free(file);
    return 0;
  }
  if (!level->inner && level->chain_owns_codecs) {
    /* Straight into the output, one zcast_chain_decode per row of the part inside the region:
     * no decoded copy of the chunk to move afterwards. */
    unsigned char* encoded = undo_bytes(level, data, size, u->where, timers, err);
    if (!encoded) { fail_pool(p, err); goto done; }
    t0 = rd_now();
    if (write_box(ndim, p->region, p->out, u->origin, level->chunk_shape, encoded, level->enc_size,
                  level->chain, NULL, level->dec_size, &part) != 0) {
      /* Once more over the whole chunk, for the message's chunk-relative element index. */
      chunk = (unsigned char*)malloc(level->chunk_elements * level->dec_size + 1);
      if (chunk && zcast_chain_decode(level->chain, encoded, level->chunk_elements, chunk) == ZCAST_OK)
        snprintf(err, sizeof err, "%s: a value fails to decode", u->where); /* not reached */
      else
        snprintf(err, sizeof err, "%s: a value fails to decode: %s", u->where, zcast_last_error());
      free(encoded);
      fail_pool(p, err);
      goto done;
    }
    timers->zcast += rd_now() - t0;
    free(encoded);
    rc = 0;
    goto done;
  }
  chunk = (unsigned char*)malloc(level->chunk_elements * level->dec_size + 1);
  if (!chunk) { fail_pool(p, "out of memory"); goto done; }
  if (rd_decode_chunk(level, data, size, u->where, chunk, timers, err) != 0) {
    fail_pool(p, err);
    goto done;
  }
  t0 = rd_now();
  copy_box(ndim, p->region, p->out, u->origin, level->chunk_shape, chunk, NULL, level->dec_size,
           &part);
  timers->other += rd_now() - t0;
  rc = 0;
done:
  free(chunk);
  free(file);
  return rc;
}

typedef struct worker {
  pool* p;
  rd_timers timers;
  pthread_t thread;
} worker;

static void* work(void* arg) {
  worker* w = (worker*)arg;
  pool* p = w->p;
  for (;;) {
    size_t i;
    pthread_mutex_lock(&p->lock);
    i = p->failed ? p->n_units : p->next++;
    pthread_mutex_unlock(&p->lock);
    if (i >= p->n_units) break;
    if (run_unit(p, &p->units[i], &w->timers) != 0) break;
  }
  return NULL;
}

static int run_pool(pool* p, int threads, rd_timers* timers) {
  worker ws[64];
  int t, started = 0;
  if (threads < 1) threads = 1;
  if (threads > 64) threads = 64;
  p->next = 0;
  memset(ws, 0, sizeof ws);
  for (t = 0; t < threads; ++t) ws[t].p = p;
  for (t = 1; t < threads; ++t) {
    if (pthread_create(&ws[t].thread, NULL, work, &ws[t]) != 0) break;
    ++started;
  }
  work(&ws[0]); /* the calling thread is worker 0 */
  for (t = 1; t <= started; ++t) pthread_join(ws[t].thread, NULL);
  for (t = 0; t < threads; ++t) {
    timers->read += ws[t].timers.read;
    timers->decompress += ws[t].timers.decompress;
    timers->zcast += ws[t].timers.zcast;
    timers->other += ws[t].timers.other;
  }
  return p->failed ? -1 : 0;
}

/* The key of chunk `pos` (Zarr v3 default or v2 chunk key encoding) under the array's dir. */
static void chunk_path(const rd_array* a, const uint64_t* pos, char* path, size_t size,
                       char* where, size_t where_size) {
  size_t used = (size_t)snprintf(path, size, "%s/%s", a->dir, a->v2_keys ? "" : "c");
  size_t wused = (size_t)snprintf(where, where_size, "chunk (");
  int d;
  for (d = 0; d < a->ndim; ++d) {
    const char* sep = (d == 0 && a->v2_keys) ? "" : (a->separator == '/' ? "/" : ".");
    if (used < size) used += (size_t)snprintf(path + used, size - used, "%s%llu", sep, (ull)pos[d]);
    if (wused < where_size)
      wused += (size_t)snprintf(where + wused, where_size - wused, "%s%llu", d ? ", " : "",
                                (ull)pos[d]);
  }
  if (wused < where_size) snprintf(where + wused, where_size - wused, ")");
}

/* Advances pos through [first, last] in C order; 0 when done. */
static int next_position(int ndim, const uint64_t* first, const uint64_t* last, uint64_t* pos) {
  int d;
  for (d = ndim - 1; d >= 0; --d) {
    if (++pos[d] <= last[d]) return 1;
    pos[d] = first[d];
  }
  return 0;
}

/* Splits one shard (read here, by the calling thread) into units, one per inner chunk. */
static int split_shard(pool* p, const char* path, const char* where, const uint64_t* shard_origin,
                       unsigned char** shard_out, uint64_t* entries, rd_timers* timers) {
  const rd_level* top = &p->array->top;
  size_t size = 0, k;
  double t0 = rd_now();
  unsigned char* shard = rd_read_file(path, &size);
  char shard_where[480];
  int d;
  timers->read += rd_now() - t0;
  *shard_out = shard;
  snprintf(shard_where, sizeof shard_where, "%.300s: %s", path, where);
  if (!shard && errno != ENOENT) {
    snprintf(p->err, sizeof p->err, "%s: cannot read: %s", path, strerror(errno));
    return -1;
  }
  if (shard && read_shard_index(top, shard, size, shard_where, entries, p->err) != 0) return -1;
  for (k = 0; k < top->inner_count; ++k) {
    unit* u = &p->units[k];
    char ipos[160];
    memset(u, 0, sizeof *u);
    u->level = top->inner;
    inner_position(top, k, u->origin, ipos, sizeof ipos);
    for (d = 0; d < p->array->ndim; ++d) u->origin[d] += shard_origin[d];
    u->missing = !shard || entries[2 * k] == UINT64_MAX; /* a missing shard: all fill */
    if (!u->missing) {
      u->data = shard + entries[2 * k];
      u->size = (size_t)entries[2 * k + 1];
    }
    snprintf(u->where, sizeof u->where, "%s, inner chunk %s", shard_where, ipos);
  }
  return 0;
}

int rd_read_region(const rd_array* a, const rd_box* region, int threads, void* out,
                   rd_timers* timers, char* err) {
  const rd_level* top = &a->top;
  uint64_t first[RD_MAX_DIMS], last[RD_MAX_DIMS], pos[RD_MAX_DIMS];
  /* A shard whose chain owns nothing (EOPF: the whole band is one shard) is split into its
   * inner chunks, so that the threads share one shard's work; otherwise a unit is a chunk file
   * (a shard is then decoded whole by one thread, its chain after its inner chunks). */
  int split = top->inner != NULL && !top->chain_owns_codecs, d, rc = 0;
  size_t n_chunks = 1, k;
  char path[4300], where[160];
  pool p;
  memset(&p, 0, sizeof p);
  p.array = a;
  p.region = region;
  p.out = (unsigned char*)out;
  for (d = 0; d < a->ndim; ++d) {
    if (region->count[d] == 0) return 0;
    first[d] = region->start[d] / top->chunk_shape[d];
    last[d] = (region->start[d] + region->count[d] - 1) / top->chunk_shape[d];
    pos[d] = first[d];
    n_chunks *= (size_t)(last[d] - first[d] + 1);
  }
  pthread_mutex_init(&p.lock, NULL);
  p.n_units = split ? top->inner_count : n_chunks;
  p.units = (unit*)calloc(p.n_units, sizeof(unit));
  if (!p.units) { snprintf(p.err, sizeof p.err, "out of memory"); rc = -1; }
  if (rc == 0 && !split) {
    k = 0;
    do {
      unit* u = &p.units[k++];
      u->level = top;
      for (d = 0; d < a->ndim; ++d) u->origin[d] = pos[d] * top->chunk_shape[d];
      chunk_path(a, pos, u->path, sizeof u->path, where, sizeof where);
      snprintf(u->where, sizeof u->where, "%.300s: %s", u->path, where);
    } while (next_position(a->ndim, first, last, pos));
    rc = run_pool(&p, threads, timers);
  } else if (rc == 0) {
    uint64_t* entries = (uint64_t*)malloc(16 * top->inner_count + 1);
    if (!entries) { snprintf(p.err, sizeof p.err, "out of memory"); rc = -1; }
    while (rc == 0) {
      uint64_t origin[RD_MAX_DIMS];
      unsigned char* shard = NULL;
      for (d = 0; d < a->ndim; ++d) origin[d] = pos[d] * top->chunk_shape[d];
      chunk_path(a, pos, path, sizeof path, where, sizeof where);
      rc = split_shard(&p, path, where, origin, &shard, entries, timers);
      if (rc == 0) rc = run_pool(&p, threads, timers);
      free(shard);
      if (!next_position(a->ndim, first, last, pos)) break;
    }
    free(entries);
  }
  if (rc != 0) snprintf(err, RD_ERROR_SIZE, "%s", p.err);
  free(p.units);
  pthread_mutex_destroy(&p.lock);
  return rc;
}
