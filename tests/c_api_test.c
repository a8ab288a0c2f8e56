/* The C API exercised from C99: handles, status codes, messages, buffers. Each CHECK counts; the
 * program prints "N passed, M failed" and exits non-zero on any failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "zcast/zcast.h"

static int passed = 0, failed = 0;
#define CHECK(cond)                                                   \
  do {                                                                \
    if (cond) {                                                       \
      ++passed;                                                       \
    } else {                                                          \
      ++failed;                                                       \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n",  \
              __FILE__, __LINE__, #cond, zcast_last_error());         \
    }                                                                 \
  } while (0)

static const char* kUint8Clamp =
    "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\","
    "\"out_of_range\":\"clamp\",\"scalar_map\":{\"encode\":[[\"NaN\",0]],"
    "\"decode\":[[0,\"NaN\"]]}}}";

static void test_round_trip(void) {
  zcast_codec* codec = NULL;
  CHECK(zcast_codec_create(kUint8Clamp, "\"float32\"", "\"NaN\"", &codec) == ZCAST_OK);
  CHECK(codec != NULL);
  if (!codec) return;
  CHECK(strcmp(zcast_codec_encoded_data_type(codec), "\"uint8\"") == 0);
  CHECK(strcmp(zcast_codec_encoded_fill_value(codec), "0") == 0);
  float in[6] = {NAN, 1.5f, 2.5f, -3.0f, 300.0f, 254.6f};
  uint8_t enc[6];
  CHECK(zcast_encode(codec, in, 6, enc) == ZCAST_OK);
  uint8_t want[6] = {0, 2, 2, 0, 255, 255};
  CHECK(memcmp(enc, want, 6) == 0);
  float dec[6];
  CHECK(zcast_decode(codec, enc, 6, dec) == ZCAST_OK);
  CHECK(isnan(dec[0]) && dec[1] == 2.0f && dec[4] == 255.0f);
  CHECK(zcast_encode(codec, NULL, 0, NULL) == ZCAST_OK); /* empty buffers are fine */
  zcast_codec_destroy(codec);
}

static void test_cast_failure_names_element(void) {
  zcast_codec* codec = NULL;
  CHECK(zcast_codec_create("{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int8\"}}",
                           "{\"name\":\"float64\"}", NULL, &codec) == ZCAST_OK);
  if (!codec) return;
  CHECK(zcast_codec_encoded_fill_value(codec) == NULL);
  double in[3] = {1.0, -128.0, 128.0};
  int8_t out[3];
  CHECK(zcast_encode(codec, in, 3, out) == ZCAST_CAST_FAILED);
  CHECK(strstr(zcast_last_error(), "element 2") != NULL);
  CHECK(strstr(zcast_last_error(), "128") != NULL);
  CHECK(strstr(zcast_last_error(), "int8") != NULL);
  CHECK(strstr(zcast_last_error(), "float64") != NULL);
  zcast_codec_destroy(codec);
}

static void test_invalid_metadata(void) {
  zcast_codec* codec = (zcast_codec*)&passed; /* must be reset to NULL on failure */
  CHECK(zcast_codec_create("{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\","
                           "\"rounding\":\"up\"}}",
                           "\"float32\"", NULL, &codec) == ZCAST_INVALID_METADATA);
  CHECK(codec == NULL);
  CHECK(strstr(zcast_last_error(), "rounding") != NULL && strstr(zcast_last_error(), "up") != NULL);
  CHECK(zcast_codec_create("{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\"}}",
                           "\"complex64\"", NULL, &codec) == ZCAST_INVALID_METADATA);
  CHECK(strstr(zcast_last_error(), "complex64") != NULL);
  /* R9: NaN fill into uint8 without a scalar_map cannot be encoded. */
  CHECK(zcast_codec_create("{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\"}}",
                           "\"float32\"", "\"NaN\"", &codec) == ZCAST_INVALID_METADATA);
  CHECK(strstr(zcast_last_error(), "fill_value") != NULL);
  CHECK(zcast_codec_create("not json", "\"float32\"", NULL, &codec) == ZCAST_INVALID_METADATA);
}

static void test_invalid_arguments(void) {
  zcast_codec* codec = NULL;
  CHECK(zcast_codec_create(NULL, "\"float32\"", NULL, &codec) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_codec_create(kUint8Clamp, "\"float32\"", NULL, NULL) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_encode(NULL, NULL, 0, NULL) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_decode(NULL, NULL, 0, NULL) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_codec_create(kUint8Clamp, "\"float32\"", NULL, &codec) == ZCAST_OK);
  uint8_t out[1];
  CHECK(zcast_encode(codec, NULL, 1, out) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_codec_encoded_data_type(NULL) == NULL);
  zcast_codec_destroy(codec);
  zcast_codec_destroy(NULL); /* like free(NULL) */
  CHECK(strlen(zcast_version()) > 0);
}

int main(void) {
  test_round_trip();
  test_cast_failure_names_element();
  test_invalid_metadata();
  test_invalid_arguments();
  printf("c_api: %d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
