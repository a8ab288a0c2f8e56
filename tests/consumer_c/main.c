/* A C program linked through find_package(zcast) in a project that enables C only
 * (consumer_test.cmake): encodes with clamping, decodes, and checks the values. */
#include <stdio.h>

#include <zcast/zcast.h>

int main(void) {
  const double in[4] = {128.0, -1e9, 2.5, -3.5};
  signed char stored[4];
  double back[4];
  zcast_codec* codec = NULL;
  if (zcast_codec_create(
          "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int8\","
          "\"out_of_range\":\"clamp\"}}",
          "\"float64\"", NULL, &codec) != ZCAST_OK ||
      zcast_encode(codec, in, 4, stored) != ZCAST_OK ||
      zcast_decode(codec, stored, 4, back) != ZCAST_OK) {
    fprintf(stderr, "zcast: %s\n", zcast_last_error());
    return 1;
  }
  zcast_codec_destroy(codec);
  /* nearest-even: 2.5 -> 2, -3.5 -> -4; clamp: 128 -> 127, -1e9 -> -128 */
  if (stored[0] != 127 || stored[1] != -128 || stored[2] != 2 || stored[3] != -4 ||
      back[0] != 127.0 || back[3] != -4.0) {
    fprintf(stderr, "wrong values: %d %d %d %d\n", stored[0], stored[1], stored[2], stored[3]);
    return 1;
  }
  printf("C consumer OK, zcast %s: 128 -> 127, -1e9 -> -128, 2.5 -> 2, -3.5 -> -4\n",
         zcast_version());
  return 0;
}
