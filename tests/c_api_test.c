/* The C API exercised from C99: handles, status codes, messages, buffers. Each CHECK counts; the
 * program prints "N passed, M failed" and exits non-zero on any failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Whether `word` is one of the space-separated words of `list`. */
static int has_word(const char* list, const char* word) {
  size_t n = strlen(word);
  for (const char* p = list; (p = strstr(p, word)) != NULL; p += n) {
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  }
  return 0;
}

/* The SIMD target in use is one the CPU supports, and those are compiled ones ("baseline" first). */
static void test_simd_targets(void) {
  const char* chosen = zcast_simd_target();
  const char* compiled = zcast_simd_targets_compiled();
  const char* supported = zcast_simd_targets_supported();
  CHECK(chosen != NULL && compiled != NULL && supported != NULL);
  CHECK(strncmp(compiled, "baseline", 8) == 0);
  CHECK(strncmp(supported, "baseline", 8) == 0);
  CHECK(has_word(supported, chosen));
  CHECK(strcmp(zcast_simd_target(), chosen) == 0); /* decided once per process */
  char copy[256];
  snprintf(copy, sizeof copy, "%s", supported);
  for (char* w = strtok(copy, " "); w != NULL; w = strtok(NULL, " ")) CHECK(has_word(compiled, w));
  CHECK(!has_word("AVX2 AVX3", "AVX")); /* the helper itself */
}

/* zcast_codec_create takes scale_offset metadata too: (x - offset) * scale in int16 arithmetic. */
static void test_scale_offset_codec(void) {
  zcast_codec* codec = NULL;
  int16_t in[4] = {5, 6, -10, 1000}, enc[4], dec[4];
  CHECK(zcast_codec_create("{\"name\":\"scale_offset\",\"configuration\":{\"offset\":5,"
                           "\"scale\":-3}}",
                           "\"int16\"", "6", &codec) == ZCAST_OK);
  if (!codec) return;
  CHECK(strcmp(zcast_codec_encoded_data_type(codec), "\"int16\"") == 0);
  CHECK(strcmp(zcast_codec_encoded_fill_value(codec), "-3") == 0);
  CHECK(zcast_encode(codec, in, 4, enc) == ZCAST_OK);
  CHECK(enc[0] == 0 && enc[1] == -3 && enc[2] == 45 && enc[3] == -2985);
  CHECK(zcast_decode(codec, enc, 4, dec) == ZCAST_OK);
  CHECK(memcmp(in, dec, sizeof in) == 0);
  enc[1] = 7; /* not a multiple of -3 */
  CHECK(zcast_decode(codec, enc, 4, dec) == ZCAST_CAST_FAILED);
  CHECK(strstr(zcast_last_error(), "element 1") != NULL);
  CHECK(strstr(zcast_last_error(), "inexact integer division") != NULL);
  in[2] = 20000; /* (20000 - 5) * -3 leaves int16 */
  CHECK(zcast_encode(codec, in, 4, enc) == ZCAST_CAST_FAILED);
  CHECK(strstr(zcast_last_error(), "element 2: scale_offset encode of int16 value 20000") != NULL);
  zcast_codec_destroy(codec);

  codec = (zcast_codec*)&passed;
  CHECK(zcast_codec_create("{\"name\":\"scale_offset\",\"configuration\":{\"scale\":0}}",
                           "\"float32\"", NULL, &codec) == ZCAST_INVALID_METADATA);
  CHECK(codec == NULL);
  CHECK(strstr(zcast_last_error(), "\"scale\" 0 is zero") != NULL);
  CHECK(zcast_codec_create("{\"name\":\"scale_offset\",\"configuration\":{\"factor\":2}}",
                           "\"float32\"", NULL, &codec) == ZCAST_INVALID_METADATA);
  CHECK(strstr(zcast_last_error(), "\"factor\"") != NULL);
  /* Another codec's name: the message names both codecs this call binds, and the chain. */
  CHECK(zcast_codec_create("{\"name\":\"bitround\",\"configuration\":{}}", "\"float32\"", NULL,
                           &codec) == ZCAST_INVALID_METADATA);
  CHECK(strstr(zcast_last_error(), "bitround") != NULL);
  CHECK(zcast_codec_create("{\"name\":\"bytes\"}", "\"float32\"", NULL, &codec) ==
        ZCAST_INVALID_METADATA);
  CHECK(strstr(zcast_last_error(), "codec \"name\" must be \"cast_value\" or \"scale_offset\", "
                                   "got \"bytes\"") != NULL);
  CHECK(strstr(zcast_last_error(), "zcast_chain_create") != NULL);
  /* A data type without its JSON quotes: the message shows the quoted form. */
  CHECK(zcast_codec_create("{\"name\":\"cast_value\",\"configuration\":{\"data_type\":"
                           "\"int16\"}}", "float32", NULL, &codec) == ZCAST_INVALID_METADATA);
  CHECK(strstr(zcast_last_error(), "array data_type: invalid JSON at offset 0: invalid literal "
                                   "float32") != NULL);
  CHECK(strstr(zcast_last_error(), "quoted: \"float32\"") != NULL);
}

static const char* kReflectance =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"float64\","
    "\"fill_value\":\"NaN\",\"codecs\":["
    "{\"name\":\"scale_offset\",\"configuration\":{\"offset\":-0.1,\"scale\":10000}},"
    "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint16\","
    "\"scalar_map\":{\"encode\":[[\"NaN\",0]],\"decode\":[[0,\"NaN\"]]}}},"
    "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
    "{\"name\":\"zstd\",\"configuration\":{\"level\":3}}]}";

static void test_chain(void) {
  zcast_chain* chain = NULL;
  size_t index = 99;
  double in[5] = {NAN, 0.0, 0.0234, 1.0, 6.4535}, back[5];
  uint16_t dn[5];
  CHECK(zcast_chain_create(kReflectance, &chain) == ZCAST_OK);
  if (!chain) return;
  CHECK(strcmp(zcast_chain_encoded_data_type(chain), "\"uint16\"") == 0);
  CHECK(strcmp(zcast_chain_decoded_data_type(chain), "\"float64\"") == 0);
  CHECK(strcmp(zcast_chain_encoded_fill_value(chain), "0") == 0);
  CHECK(zcast_chain_encoded_element_size(chain) == 2);
  CHECK(zcast_chain_decoded_element_size(chain) == 8);
  CHECK(strcmp(zcast_chain_next_codec(chain, &index),
               "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}") == 0);
  CHECK(index == 2);
  CHECK(strcmp(zcast_chain_remaining_codecs(chain),
               "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
               "{\"name\":\"zstd\",\"configuration\":{\"level\":3}}]") == 0);
  CHECK(zcast_chain_encode(chain, in, 5, dn) == ZCAST_OK);
  CHECK(dn[0] == 0 && dn[1] == 1000 && dn[2] == 1234 && dn[3] == 11000 && dn[4] == 65535);
  CHECK(zcast_chain_decode(chain, dn, 5, back) == ZCAST_OK);
  CHECK(isnan(back[0]) && back[1] == 0.0 && back[3] == 1.0);
  CHECK(fabs(back[2] - 0.0234) < 1e-12);
  in[3] = 7.0; /* 71000 is beyond uint16 and out_of_range is unset */
  CHECK(zcast_chain_encode(chain, in, 5, dn) == ZCAST_CAST_FAILED);
  CHECK(strstr(zcast_last_error(), "element 3") != NULL);
  CHECK(strstr(zcast_last_error(), "uint16") != NULL);
  CHECK(zcast_chain_encode(chain, NULL, 0, NULL) == ZCAST_OK);
  CHECK(zcast_chain_decode(chain, NULL, 1, back) == ZCAST_INVALID_ARGUMENT);
  zcast_chain_destroy(chain);

  /* A chain that owns every codec, built from the parts (e.g. a shard's inner codecs). */
  chain = NULL;
  CHECK(zcast_chain_create_from_codecs(
            "[{\"name\":\"numcodecs.fixedscaleoffset\",\"configuration\":{\"offset\":1000,"
            "\"scale\":10,\"dtype\":\"<f8\",\"astype\":\"|u1\"}}]",
            "\"float64\"", NULL, &chain) == ZCAST_OK);
  if (chain) {
    double x[2] = {1012.34, 1025.6};
    uint8_t b[2];
    CHECK(zcast_chain_next_codec(chain, &index) == NULL);
    CHECK(index == 1);
    CHECK(strcmp(zcast_chain_remaining_codecs(chain), "[]") == 0);
    CHECK(zcast_chain_encoded_fill_value(chain) == NULL);
    CHECK(zcast_chain_encode(chain, x, 2, b) == ZCAST_OK);
    CHECK(b[0] == 123 && b[1] == 0); /* 256 wraps */
    zcast_chain_destroy(chain);
  }
}

static void test_chain_errors(void) {
  zcast_chain* chain = (zcast_chain*)&passed;
  CHECK(zcast_chain_create("{\"data_type\":\"float32\",\"codecs\":[{\"name\":\"scale_offset\","
                           "\"configuration\":{\"scale\":\"NaN\"}},\"bytes\"]}",
                           &chain) == ZCAST_INVALID_METADATA);
  CHECK(chain == NULL);
  CHECK(strstr(zcast_last_error(), "codecs[0]") != NULL);
  CHECK(strstr(zcast_last_error(), "must be finite") != NULL);
  CHECK(zcast_chain_create("{\"zarr_format\":2}", &chain) == ZCAST_INVALID_METADATA);
  CHECK(zcast_chain_create(NULL, &chain) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_chain_create(kReflectance, NULL) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_chain_create_from_codecs("[]", "\"complex64\"", NULL, &chain) ==
        ZCAST_INVALID_METADATA);
  CHECK(zcast_chain_create_from_codecs(NULL, "\"float32\"", NULL, &chain) ==
        ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_chain_encode(NULL, NULL, 0, NULL) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_chain_decode(NULL, NULL, 0, NULL) == ZCAST_INVALID_ARGUMENT);
  CHECK(zcast_chain_encoded_data_type(NULL) == NULL);
  CHECK(zcast_chain_encoded_fill_value(NULL) == NULL);
  CHECK(zcast_chain_next_codec(NULL, NULL) == NULL);
  CHECK(zcast_chain_remaining_codecs(NULL) == NULL);
  CHECK(zcast_chain_encoded_element_size(NULL) == 0);
  zcast_chain_destroy(NULL);
}

/* R33: the first failing element across the chain's codecs, and its index as a number. */
static void test_chain_first_failing_element(void) {
  zcast_chain* chain = NULL;
  CHECK(zcast_chain_create_from_codecs(
            "[{\"name\":\"scale_offset\",\"configuration\":{\"scale\":1e30}},"
            "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\"}}]",
            "\"float64\"", NULL, &chain) == ZCAST_OK);
  if (!chain) return;
  double in[2] = {1.0, 1e10};
  uint8_t out[2];
  size_t index = 99;
  CHECK(zcast_chain_encode(chain, in, 2, out) == ZCAST_CAST_FAILED);
  CHECK(strncmp(zcast_last_error(), "element 0: ", 11) == 0);
  CHECK(zcast_last_error_element(&index) == 1 && index == 0);
  zcast_chain_destroy(chain);
  /* A failure that is not about an element clears it. */
  CHECK(zcast_chain_create("{\"zarr_format\":2}", &chain) == ZCAST_INVALID_METADATA);
  CHECK(zcast_last_error_element(&index) == 0);
}

/* R32: the chain refuses to write a value its decode rejects (32767 / 2 is not an integer). */
static void test_chain_refuses_undecodable(void) {
  zcast_chain* chain = NULL;
  CHECK(zcast_chain_create_from_codecs(
            "[{\"name\":\"scale_offset\",\"configuration\":{\"scale\":2}},"
            "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int16\","
            "\"out_of_range\":\"clamp\"}}]",
            "\"int32\"", NULL, &chain) == ZCAST_OK);
  if (!chain) return;
  int32_t in[4] = {1, 2, 100000, 3};
  int16_t out[4];
  size_t index = 99;
  CHECK(zcast_chain_encode(chain, in, 4, out) == ZCAST_CAST_FAILED);
  CHECK(zcast_last_error_element(&index) == 1 && index == 2);
  CHECK(strncmp(zcast_last_error(), "element 2: int32 value 100000 encodes to int16 value 32767",
                58) == 0);
  CHECK(strstr(zcast_last_error(), "32767 / 2 is not an integer") != NULL);
  zcast_chain_destroy(chain);
}

/* R34: input quoted in a message is bounded, and a NUL in it is escaped, not a terminator. */
static void test_bounded_messages(void) {
  const size_t big = 10u * 1000u * 1000u;
  const char* head = "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"";
  const char* tail = "\"}}";
  char* json = (char*)malloc(strlen(head) + big + strlen(tail) + 1);
  zcast_codec* codec = NULL;
  if (!json) return;
  strcpy(json, head);
  memset(json + strlen(head), 'a', big);
  strcpy(json + strlen(head) + big, tail);
  CHECK(zcast_codec_create(json, "\"float32\"", NULL, &codec) == ZCAST_INVALID_METADATA);
  CHECK(strlen(zcast_last_error()) < 300);
  CHECK(strstr(zcast_last_error(), "aaaa...") != NULL);
  CHECK(strstr(zcast_last_error(), "(10000002 bytes)") != NULL);
  /* The same as an unknown key (10 MB of 'a' again, now a key). */
  strcpy(json, "{\"name\":\"cast_value\",\"configuration\":{\"");
  memset(json + strlen(json), 'a', big);
  strcpy(json + strlen("{\"name\":\"cast_value\",\"configuration\":{\"") + big, "\":1}}");
  CHECK(zcast_codec_create(json, "\"float32\"", NULL, &codec) == ZCAST_INVALID_METADATA);
  CHECK(strlen(zcast_last_error()) < 300);
  CHECK(strstr(zcast_last_error(), "unknown key \"aaaa") != NULL);
  free(json);
  /* A NUL in a type name, as JSON "\u0000", in the codec and in the array data type. */
  CHECK(zcast_codec_create("{\"name\":\"cast_value\",\"configuration\":"
                           "{\"data_type\":\"uint8\\u0000evil\"}}",
                           "\"float32\"", NULL, &codec) == ZCAST_INVALID_METADATA);
  CHECK(strstr(zcast_last_error(), "\"uint8\\u0000evil\" is not one of the 26") != NULL);
  CHECK(zcast_codec_create(kUint8Clamp, "\"float32\\u0000x\"", NULL, &codec) ==
        ZCAST_INVALID_METADATA);
  CHECK(strstr(zcast_last_error(), "\"float32\\u0000x\" is not one of the 26") != NULL);
}

int main(void) {
  test_round_trip();
  test_cast_failure_names_element();
  test_invalid_metadata();
  test_invalid_arguments();
  test_scale_offset_codec();
  test_chain();
  test_chain_errors();
  test_chain_first_failing_element();
  test_chain_refuses_undecodable();
  test_bounded_messages();
  test_simd_targets();
  printf("c_api: %d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
