/* zcast: the exact Zarr v3 `cast_value` codec, C API (C99).
 *
 * For C and C++ Zarr readers (GDAL and others) that need to decode or encode chunks whose codec
 * chain contains cast_value. Opaque handles, integer status codes, no exception crosses this
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

/* Builds a cast_value codec from its metadata ({"name": "cast_value", "configuration": {...}}),
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

#ifdef __cplusplus
}
#endif

#endif /* ZCAST_ZCAST_H_ */
