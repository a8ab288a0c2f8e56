/* CRC-32C (Castagnoli): the checksum of the crc32c codec, which sharding_indexed uses on its
 * index. Reflected polynomial 0x82F63B78, initial value and final xor 0xFFFFFFFF, one table
 * lookup per byte (the table is built once, thread-safely). crc32c_test.c checks it on known
 * answers. */
#include <pthread.h>

#include "reader.h"

static uint32_t g_table[256];
static pthread_once_t g_table_once = PTHREAD_ONCE_INIT;

static void build_table(void) {
  uint32_t i;
  int k;
  for (i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    g_table[i] = c;
  }
}

uint32_t rd_crc32c(const unsigned char* data, size_t size) {
  uint32_t crc = 0xFFFFFFFFu;
  size_t i;
  pthread_once(&g_table_once, build_table);
  for (i = 0; i < size; ++i) crc = (crc >> 8) ^ g_table[(crc ^ data[i]) & 0xFFu];
  return crc ^ 0xFFFFFFFFu;
}
