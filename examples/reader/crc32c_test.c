/* Known answers for rd_crc32c: the check value of CRC-32C ("123456789" -> 0xE3069283, from the
 * CRC catalogue's CRC-32/ISCSI entry) and the RFC 3720 (iSCSI) appendix B.4 vectors. Exit 0
 * when all match. */
#include <stdio.h>
#include <string.h>

#include "reader.h"

static int check(const char* name, const unsigned char* data, size_t size, uint32_t want) {
  uint32_t got = rd_crc32c(data, size);
  if (got != want) {
    printf("FAIL %s: 0x%08lx, expected 0x%08lx\n", name, (unsigned long)got, (unsigned long)want);
    return 1;
  }
  printf("ok   %s: 0x%08lx\n", name, (unsigned long)got);
  return 0;
}

int main(void) {
  unsigned char buf[32];
  int failed = 0, i;
  failed += check("\"123456789\"", (const unsigned char*)"123456789", 9, 0xE3069283u);
  failed += check("empty", buf, 0, 0x00000000u);
  memset(buf, 0, 32);
  failed += check("32 x 0x00", buf, 32, 0x8A9136AAu);
  memset(buf, 0xFF, 32);
  failed += check("32 x 0xFF", buf, 32, 0x62A8AB43u);
  for (i = 0; i < 32; ++i) buf[i] = (unsigned char)i;
  failed += check("0x00..0x1F", buf, 32, 0x46DD794Eu);
  for (i = 0; i < 32; ++i) buf[i] = (unsigned char)(31 - i);
  failed += check("0x1F..0x00", buf, 32, 0x113FDB5Cu);
  return failed ? 1 : 0;
}
