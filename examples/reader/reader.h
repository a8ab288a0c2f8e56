/* zcast_read_chunk: a complete C reader of one Zarr v3 array through zcast's C API (C99).
 *
 * The files of this example, each one step of the read path a C/C++ Zarr reader (GDAL...) takes:
 *   main.c        the command line, the one-chunk form, writing OUT atomically, timers
 *   metadata.c    zarr.json (cJSON) -> a pipeline per codec level (sharding nests one level)
 *   decode.c      one chunk: decompress, bytes, zcast_chain_decode; shards; fill; region copy;
 *                 the worker threads
 *   decompress.c  blosc, zstd, gzip, crc32c (bytes -> bytes codecs), bounded by the expected size
 *   crc32c.c      CRC-32C, table-driven (the shard index checksum)
 * docs/integrating.md explains the same path for a C++ reader.
 */
#ifndef ZCAST_EXAMPLES_READER_H_
#define ZCAST_EXAMPLES_READER_H_

#include <stddef.h>
#include <stdint.h>

#include "zcast/zcast.h"

#define RD_MAX_DIMS 8
#define RD_MAX_COMPRESSORS 8
#define RD_ERROR_SIZE 1024

/* A bytes -> bytes codec this reader undoes. */
typedef enum rd_compressor { RD_BLOSC, RD_ZSTD, RD_GZIP, RD_CRC32C } rd_compressor;

/* Everything needed to decode one stored chunk of one codec level: the array -> array codecs
 * (zcast's chain), the array -> bytes codec (bytes, or sharding_indexed with an inner level) and
 * the compressors. Immutable once built, so shared by every worker thread. */
typedef struct rd_level {
  int ndim;
  uint64_t chunk_shape[RD_MAX_DIMS]; /* the chunk this level decodes (a shard, or an inner chunk) */
  size_t chunk_elements;
  zcast_chain* chain;                /* owns the leading scale_offset / cast_value codecs */
  int chain_owns_codecs;             /* 0: the chain is the identity (copy through) */
  size_t enc_size, dec_size;         /* element sizes before and after the chain */
  char enc_type[64], dec_type[64];   /* their JSON (e.g. "\"uint16\"") */
  unsigned char enc_fill[16];        /* the fill value reaching the array -> bytes codec */
  unsigned char dec_fill[16];        /* the fill value of this level's decoded type */
  char codec_desc[256];              /* the array -> bytes codec, compact JSON (for messages) */
  size_t codec_index;                /* its index in this level's "codecs" */
  /* array -> bytes: bytes */
  int big_endian;
  int n_compressors;
  rd_compressor compressors[RD_MAX_COMPRESSORS]; /* in metadata order; undone last first */
  /* array -> bytes: sharding_indexed */
  struct rd_level* inner;
  uint64_t inner_per_shard[RD_MAX_DIMS];
  size_t inner_count;
  int index_at_end, index_crc32c, index_big_endian;
} rd_level;

/* The array: its metadata and the top codec level. */
typedef struct rd_array {
  char dir[4096];
  int ndim;
  uint64_t shape[RD_MAX_DIMS];
  char separator;      /* chunk key separator */
  int v2_keys;         /* "v2" chunk key encoding: no "c" prefix */
  rd_level top;
} rd_array;

/* A box of the array, [start, start + count) per dimension. */
typedef struct rd_box {
  uint64_t start[RD_MAX_DIMS];
  uint64_t count[RD_MAX_DIMS];
} rd_box;

/* Time spent per step, summed over threads (seconds). */
typedef struct rd_timers {
  double read, decompress, zcast, other;
} rd_timers;

/* ---- metadata.c ---- */
/* Loads DIR/zarr.json (or the file itself when `path` ends in .json). 0 or -1 with `err`. */
int rd_array_open(const char* path, rd_array* array, char* err);
void rd_array_close(rd_array* array);
/* Builds a level from codec metadata text. Exposed for the one-chunk form's checks. */
const char* rd_compressor_name(rd_compressor c);

/* ---- decode.c ---- */
/* Reads `region` of the array into `out` (C order, native-endian, the array's data type),
 * with `threads` workers. 0, or -1 with the first error in `err` ("PATH: chunk (..): reason"). */
int rd_read_region(const rd_array* array, const rd_box* region, int threads, void* out,
                   rd_timers* timers, char* err);
/* Decodes one stored chunk of `level` (its whole chunk shape) into `out`. `where` names the
 * chunk in messages. 0 or -1 with `err`. */
int rd_decode_chunk(const rd_level* level, const unsigned char* data, size_t size,
                    const char* where, void* out, rd_timers* timers, char* err);
double rd_now(void);
/* Reads a whole file into a new buffer (free it; NUL-terminated); NULL, with errno ENOENT when
 * it does not exist. */
unsigned char* rd_read_file(const char* path, size_t* size);

/* ---- decompress.c ---- */
/* Undoes one compressor: `in` -> a new buffer (free it) of at most `limit` bytes; when `exact`
 * is nonzero the result must be exactly `limit` bytes. NULL with `err` on failure. */
unsigned char* rd_decompress(rd_compressor c, const unsigned char* in, size_t in_size,
                             size_t limit, int exact, size_t* out_size, char* err);

/* ---- crc32c.c ---- */
uint32_t rd_crc32c(const unsigned char* data, size_t size);

#endif /* ZCAST_EXAMPLES_READER_H_ */
