/* zcast: the exact Zarr v3 `cast_value` and `scale_offset` codecs, C API (C99).
 *
 * For C and C++ Zarr readers (GDAL and others) that need to decode or encode chunks whose codec
 * chain contains cast_value or scale_offset (or the legacy numcodecs.fixedscaleoffset). Opaque handles, integer status codes, no exception crosses this
 * boundary; the message of a thread's last failure is in zcast_last_error().
 *
 *   zcast_codec* codec = NULL;
 *   if (zcast_codec_create(
 *           "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\","
 *           "\"out_of_range\":\"clamp\",\"scalar_map\":{\"encode\":[[\"NaN\",0]],"
 *           "\"decode\":[[0,\"NaN\"]]}}}",
 *           "\"float32\"", "\"NaN\"", &codec) != ZCAST_OK) {
 *     fprintf(stderr, "%s\n", zcast_last_error());
 *   }
 *   zcast_decode(codec, stored_bytes, n, floats);   // uint8 -> float32, 0 -> NaN
 *   zcast_codec_destroy(codec);
 */
#ifndef ZCAST_ZCAST_H_
#define ZCAST_ZCAST_H_

#include <stddef.h>

#if defined(_WIN32)
#define ZCAST_C_API
#else
#define ZCAST_C_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zcast_status {
  ZCAST_OK = 0,
  ZCAST_INVALID_METADATA = 1, /* codec JSON, data type or fill value rejected */
  ZCAST_CAST_FAILED = 2,      /* an element has no result under the configuration */
  ZCAST_INVALID_ARGUMENT = 3, /* NULL handle or buffer */
  ZCAST_INTERNAL = 4          /* a bug or out of memory */
} zcast_status;

typedef struct zcast_codec zcast_codec;

/* Builds a cast_value codec from its metadata ({"name": "cast_value", "configuration": {...}})
 * or a scale_offset codec ({"name": "scale_offset", ...}; see below),
 * bound to the array's data type metadata (JSON, e.g. "\"float32\"" with the quotes) and the
 * array's fill value (JSON, or NULL for none). Validates everything (R9-R13). On success *out owns
 * a codec to be released with zcast_codec_destroy; on failure *out is NULL. */
ZCAST_C_API zcast_status zcast_codec_create(const char* codec_json, const char* array_data_type_json,
                                            const char* fill_value_json, zcast_codec** out);

/* Casts n elements of the array data type at `in` to the encoded data type at `out` (contiguous,
 * native-endian, not overlapping). On ZCAST_CAST_FAILED the message names the first failing
 * element and the contents of `out` are unspecified. */
ZCAST_C_API zcast_status zcast_encode(const zcast_codec* codec, const void* in, size_t n, void* out);
/* The inverse direction: encoded data type -> array data type. */
ZCAST_C_API zcast_status zcast_decode(const zcast_codec* codec, const void* in, size_t n, void* out);

/* The encoded data type as JSON (e.g. "\"uint8\""), owned by the codec. */
ZCAST_C_API const char* zcast_codec_encoded_data_type(const zcast_codec* codec);
/* The encoded fill value as JSON (e.g. "0" or "\"NaN\""), owned by the codec; NULL if the codec was
 * created without a fill value. */
ZCAST_C_API const char* zcast_codec_encoded_fill_value(const zcast_codec* codec);

/* The message of this thread's last failed call ("" if none). Valid until the next call. */
ZCAST_C_API const char* zcast_last_error(void);

ZCAST_C_API void zcast_codec_destroy(zcast_codec* codec);
ZCAST_C_API const char* zcast_version(void);

/* ---- SIMD targets ----
 * The kernels are compiled for several SIMD targets (Google Highway's, named as Highway names
 * them: "SSE4", "AVX2", "AVX3", "AVX3_DL", "NEON", "SVE", "SVE2", "EMU128", ...; "baseline" is the
 * portable loops alone). Each process uses one: the best its CPU supports, capped by the
 * environment variable ZCAST_SIMD_TARGET=NAME (read once, at the first codec or call), e.g. to
 * benchmark or to rule a target out. The strings are static. */
/* The target this process uses. */
ZCAST_C_API const char* zcast_simd_target(void);
/* The targets compiled into the library, space-separated, worst first, "baseline" first. */
ZCAST_C_API const char* zcast_simd_targets_compiled(void);
/* Those of them this CPU supports, the same way (the cap does not apply). */
ZCAST_C_API const char* zcast_simd_targets_supported(void);

/* ---- scale_offset ----
 * zcast_codec_create also takes scale_offset metadata ({"name": "scale_offset", "configuration":
 * {"offset": s, "scale": s}}), dispatching on "name". zcast_encode computes (x - offset) * scale
 * and zcast_decode x / scale + offset in the array type's own arithmetic; the encoded data type
 * is the array's. */

/* ---- the array -> array chain of an array ----
 *
 *   zcast_chain* chain = NULL;
 *   if (zcast_chain_create(zarr_json_text, &chain) != ZCAST_OK) {
 *     fprintf(stderr, "%s\n", zcast_last_error());
 *   }
 *   // the chunk's elements after the array -> bytes codec: zcast_chain_encoded_data_type(chain)
 *   zcast_chain_decode(chain, chunk_elements, n, array_elements);
 *   zcast_chain_destroy(chain);
 *
 * The chain owns the leading scale_offset, cast_value and numcodecs.fixedscaleoffset codecs of
 * the array's "codecs" and runs them in one pass; the codecs after them (bytes, compressors,
 * sharding_indexed) are the caller's: see zcast_chain_next_codec. */
typedef struct zcast_chain zcast_chain;

/* Builds the chain from an array's whole zarr.json text (Zarr v3: "data_type", "fill_value",
 * "codecs"). On success *out owns a chain to be released with zcast_chain_destroy; on failure *out
 * is NULL and zcast_last_error() names the codec index and key. */
ZCAST_C_API zcast_status zcast_chain_create(const char* array_metadata_json, zcast_chain** out);
/* The same from the parts: a JSON array of codec metadata (e.g. the inner "codecs" of
 * sharding_indexed), the array's data type JSON and fill value JSON (NULL for none). */
ZCAST_C_API zcast_status zcast_chain_create_from_codecs(const char* codecs_json,
                                                        const char* array_data_type_json,
                                                        const char* fill_value_json,
                                                        zcast_chain** out);

/* Encodes n elements of the array data type at `in` into the encoded data type at `out`
 * (contiguous, native-endian, not overlapping). Errors as zcast_encode. */
ZCAST_C_API zcast_status zcast_chain_encode(const zcast_chain* chain, const void* in, size_t n,
                                            void* out);
/* The inverse: encoded data type -> array data type. */
ZCAST_C_API zcast_status zcast_chain_decode(const zcast_chain* chain, const void* in, size_t n,
                                            void* out);

/* The data type handed to the first codec the chain does not own, as JSON (e.g. "\"uint16\""),
 * owned by the chain. */
ZCAST_C_API const char* zcast_chain_encoded_data_type(const zcast_chain* chain);
/* The fill value handed to that codec as JSON (e.g. "0"), owned by the chain; NULL when the
 * array has none. */
ZCAST_C_API const char* zcast_chain_encoded_fill_value(const zcast_chain* chain);
/* The array's data type as JSON, owned by the chain. */
ZCAST_C_API const char* zcast_chain_decoded_data_type(const zcast_chain* chain);
/* Bytes per element of the encoded and the decoded data type (sub-byte types: 1). */
ZCAST_C_API size_t zcast_chain_encoded_element_size(const zcast_chain* chain);
ZCAST_C_API size_t zcast_chain_decoded_element_size(const zcast_chain* chain);
/* The first codec the chain does not own, as compact JSON (e.g.
 * "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}" or "\"bytes\""), and its
 * index in "codecs" through *index (if not NULL). NULL (and *index = the number of codecs) when
 * the chain owns them all. Owned by the chain. */
ZCAST_C_API const char* zcast_chain_next_codec(const zcast_chain* chain, size_t* index);
/* Every codec from that one to the end ("codecs"[index:]) as a compact JSON array, e.g.
 * "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},{\"name\":\"gzip\",...}]":
 * the array -> bytes codec and the bytes -> bytes codecs (compressors) the reader undoes before
 * zcast_chain_decode. "[]" when the chain owns every codec. Owned by the chain. */
ZCAST_C_API const char* zcast_chain_remaining_codecs(const zcast_chain* chain);

ZCAST_C_API void zcast_chain_destroy(zcast_chain* chain);

#ifdef __cplusplus
}
#endif

#endif /* ZCAST_ZCAST_H_ */
