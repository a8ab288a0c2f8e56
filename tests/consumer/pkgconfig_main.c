/* A C program built with nothing but `pkg-config --cflags --libs zcast` (pkgconfig_test.cmake):
 * decodes Sentinel-2-like DN through a chain and checks the values. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "zcast/zcast.h"

int main(void) {
  const uint16_t dn[3] = {0, 1000, 3500};
  float values[3];
  zcast_chain* chain = NULL;
  if (zcast_chain_create_from_codecs(
          "[{\"name\":\"scale_offset\",\"configuration\":{\"offset\":-0.1,\"scale\":10000}},"
          "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint16\",\"scalar_map\":"
          "{\"encode\":[[\"NaN\",0]],\"decode\":[[0,\"NaN\"]]}}},\"bytes\"]",
          "\"float32\"", "\"NaN\"", &chain) != ZCAST_OK ||
      zcast_chain_decode(chain, dn, 3, values) != ZCAST_OK) {
    fprintf(stderr, "zcast: %s\n", zcast_last_error());
    return 1;
  }
  zcast_chain_destroy(chain);
  if (!isnan(values[0]) || values[1] != 0.0f || values[2] != 0.25f) {
    fprintf(stderr, "wrong values: %g %g %g\n", values[0], values[1], values[2]);
    return 1;
  }
  printf("zcast %s via pkg-config: 0 -> nan, 1000 -> 0, 3500 -> 0.25\n", zcast_version());
  return 0;
}
