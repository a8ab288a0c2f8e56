/* The bytes -> bytes codecs this reader undoes: blosc (libblosc), zstd (libzstd), gzip (zlib)
 * and crc32c. Each is built in when CMake found its library (ZCAST_HAVE_*); without it the codec
 * is named as unsupported by this build.
 *
 * Nothing here trusts the stored data: every decompressor writes into a buffer of the size the
 * reader expects (the chunk's element count times the element size, or a bound for a compressor
 * that is not the last one undone) and fails when the data would inflate past it - a gzip bomb
 * stops at the expected size instead of inflating to gigabytes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#ifdef ZCAST_HAVE_BLOSC
#include <blosc.h>
#endif
#ifdef ZCAST_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef ZCAST_HAVE_ZLIB
#include <zlib.h>
#endif

const char* rd_compressor_name(rd_compressor c) {
  switch (c) {
    case RD_BLOSC: return "blosc";
    case RD_ZSTD: return "zstd";
    case RD_GZIP: return "gzip";
    case RD_CRC32C: return "crc32c";
  }
  return "?";
}

/* Frees `buffer`, formats the message into err and returns NULL. */
static unsigned char* fail(unsigned char* buffer, char* err, const char* format, ...) {
  va_list args;
  free(buffer);
  va_start(args, format);
  vsnprintf(err, RD_ERROR_SIZE, format, args);
  va_end(args);
  return NULL;
}

#ifdef ZCAST_HAVE_ZLIB
/* Inflates one or more gzip members into out[0, limit). */
static int gunzip(const unsigned char* in, size_t in_size, unsigned char* out, size_t limit,
                  size_t* out_size, char* err) {
  z_stream z;
  int rc;
  memset(&z, 0, sizeof z);
  if (in_size > (size_t)(uInt)-1 || limit > (size_t)(uInt)-1 ||
      inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    snprintf(err, RD_ERROR_SIZE, "gzip: cannot inflate %llu bytes", (unsigned long long)in_size);
    return -1;
  }
  z.next_in = (Bytef*)in;
  z.avail_in = (uInt)in_size;
  z.next_out = out;
  z.avail_out = (uInt)limit;
  for (;;) {
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      if (inflateReset(&z) != Z_OK) { rc = Z_DATA_ERROR; break; } /* another member follows */
      continue;
    }
    if (rc == Z_OK && z.avail_out > 0) continue;
    if ((rc == Z_OK || rc == Z_BUF_ERROR) && z.avail_out == 0) {
      /* The output is full and the stream has not ended: it holds more than expected. */
      inflateEnd(&z);
      snprintf(err, RD_ERROR_SIZE,
               "gzip: the stream inflates to more than the %llu bytes expected (stopped there)",
               (unsigned long long)limit);
      return -1;
    }
    break;
  }
  *out_size = limit - z.avail_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    snprintf(err, RD_ERROR_SIZE, "gzip: %s", rc == Z_MEM_ERROR ? "out of memory"
             : rc == Z_BUF_ERROR ? "the stream is truncated"
             : z.msg ? z.msg : "corrupt stream");
    return -1;
  }
  return 0;
}
#endif

unsigned char* rd_decompress(rd_compressor c, const unsigned char* in, size_t in_size,
                             size_t limit, int exact, size_t* out_size, char* err) {
  typedef unsigned long long ull;
  unsigned char* out = NULL;
  if (c == RD_CRC32C) { /* the checksum of the bytes before it, little-endian, at the end */
    uint32_t stored, computed;
    if (in_size < 4) return fail(NULL, err, "crc32c: %llu bytes, no room for the checksum",
                                 (ull)in_size);
    stored = (uint32_t)in[in_size - 4] | (uint32_t)in[in_size - 3] << 8 |
             (uint32_t)in[in_size - 2] << 16 | (uint32_t)in[in_size - 1] << 24;
    computed = rd_crc32c(in, in_size - 4);
    if (computed != stored)
      return fail(NULL, err, "crc32c: checksum mismatch (stored 0x%08lx, computed 0x%08lx)",
                  (unsigned long)stored, (unsigned long)computed);
    *out_size = in_size - 4;
    if (*out_size > limit || (exact && *out_size != limit))
      return fail(NULL, err, "crc32c: %llu bytes before the checksum, expected %s%llu",
                  (ull)*out_size, exact ? "" : "at most ", (ull)limit);
    out = (unsigned char*)malloc(*out_size + 1);
    if (!out) return fail(NULL, err, "out of memory (%llu bytes)", (ull)in_size);
    memcpy(out, in, *out_size);
    return out;
  }
  out = (unsigned char*)malloc(limit + 1);
  if (!out) return fail(NULL, err, "out of memory (%llu bytes)", (ull)limit);
  switch (c) {
    case RD_BLOSC: {
#ifdef ZCAST_HAVE_BLOSC
      size_t nbytes = 0;
      int got;
      /* blosc's header states the sizes; validate it against the buffer before trusting it. */
      if (in_size < BLOSC_MIN_HEADER_LENGTH || blosc_cbuffer_validate(in, in_size, &nbytes) != 0)
        return fail(out, err, "blosc: not a valid blosc buffer (%llu bytes)", (ull)in_size);
      if (nbytes > limit)
        return fail(out, err, "blosc: the buffer holds %llu bytes, more than the %llu expected",
                    (ull)nbytes, (ull)limit);
      got = blosc_decompress_ctx(in, out, limit, 1);
      if (got < 0) return fail(out, err, "blosc: decompression failed (code %d)", got);
      *out_size = (size_t)got;
      break;
#else
      return fail(out, err, "blosc: not supported by this build of zcast_read_chunk (install "
                  "libblosc-dev and configure again)");
#endif
    }
    case RD_ZSTD: {
#ifdef ZCAST_HAVE_ZSTD
      /* Into a buffer of `limit` bytes: a frame that holds more fails ("Destination buffer is
       * too small") instead of growing. */
      size_t got = ZSTD_decompress(out, limit, in, in_size);
      if (ZSTD_isError(got))
        return fail(out, err, "zstd: %s (at most %llu bytes expected)", ZSTD_getErrorName(got),
                    (ull)limit);
      *out_size = got;
      break;
#else
      return fail(out, err, "zstd: not supported by this build of zcast_read_chunk (install "
                  "libzstd-dev and configure again)");
#endif
    }
    case RD_GZIP: {
#ifdef ZCAST_HAVE_ZLIB
      if (gunzip(in, in_size, out, limit, out_size, err) != 0) { free(out); return NULL; }
      break;
#else
      return fail(out, err, "gzip: not supported by this build of zcast_read_chunk (install "
                  "zlib1g-dev and configure again)");
#endif
    }
    default:
      return fail(out, err, "unknown compressor %d", (int)c);
  }
  if (exact && *out_size != limit)
    return fail(out, err, "%s: %llu bytes after decompression, expected %llu",
                rd_compressor_name(c), (ull)*out_size, (ull)limit);
  return out;
}
