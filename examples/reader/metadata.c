/* zarr.json -> rd_array: parsed with cJSON (Debian's libcjson-dev), the array -> array codecs
 * handed to zcast as one chain per codec level (zcast_chain_create_from_codecs), the rest
 * checked here: bytes (either endian), sharding_indexed (its inner codecs are the next level; its
 * index codecs bytes + crc32c), and the compressors this reader undoes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "reader.h"

typedef unsigned long long ull;

static int failf(char* err, const char* format, const char* a, const char* b) {
  snprintf(err, RD_ERROR_SIZE, format, a, b);
  return -1;
}

/* A codec's name: {"name": "N", ...} or the bare string "N". NULL if neither. */
static const char* codec_name(const cJSON* codec) {
  const cJSON* name;
  if (cJSON_IsString(codec)) return codec->valuestring;
  name = cJSON_GetObjectItemCaseSensitive(codec, "name");
  return cJSON_IsString(name) ? name->valuestring : NULL;
}

static const cJSON* codec_configuration(const cJSON* codec) {
  return cJSON_IsObject(codec) ? cJSON_GetObjectItemCaseSensitive(codec, "configuration") : NULL;
}

/* The "endian" of a bytes codec: 1 for big, 0 for little (the default: also for one-byte
 * types, which may omit it). */
static int bytes_is_big_endian(const cJSON* codec, const char* where, char* err) {
  const cJSON* endian = cJSON_GetObjectItemCaseSensitive(codec_configuration(codec), "endian");
  if (!endian) return 0;
  if (cJSON_IsString(endian) && strcmp(endian->valuestring, "little") == 0) return 0;
  if (cJSON_IsString(endian) && strcmp(endian->valuestring, "big") == 0) return 1;
  failf(err, "%s: bytes codec: \"endian\" must be \"little\" or \"big\"%s", where, "");
  return -1;
}

/* Reads a JSON array of `ndim` positive integers (a shape) into out. */
static int read_shape(const cJSON* node, int ndim, uint64_t* out, int allow_zero) {
  int i = 0;
  const cJSON* item;
  if (!cJSON_IsArray(node) || cJSON_GetArraySize(node) != ndim) return -1;
  cJSON_ArrayForEach(item, node) {
    if (!cJSON_IsNumber(item) || item->valuedouble < (allow_zero ? 0 : 1) ||
        item->valuedouble > 9007199254740992.0 || item->valuedouble != (double)(uint64_t)item->valuedouble)
      return -1;
    out[i++] = (uint64_t)item->valuedouble;
  }
  return 0;
}

/* The fill value (JSON text as zcast canonicalizes it) as native bytes: booleans, integers,
 * float32 and float64 here, "0x..." raw bits of any type of up to 8 bytes, and the other float
 * types through a zcast cast from float64. */
static int parse_fill(const char* type_json, const char* fill_json, size_t size,
                      unsigned char* out, char* err) {
  char type[32];
  cJSON* fill = cJSON_Parse(fill_json);
  int ok = 1;
  size_t n = strlen(type_json);
  memset(out, 0, 16);
  if (n < 3 || n - 2 >= sizeof type || !fill) ok = 0;
  if (ok) { memcpy(type, type_json + 1, n - 2); type[n - 2] = 0; }
  if (ok && cJSON_IsString(fill) && strncmp(fill->valuestring, "0x", 2) == 0 && size <= 8) {
    uint64_t bits = strtoull(fill->valuestring + 2, NULL, 16);
    unsigned char le[8];
    size_t k;
    for (k = 0; k < 8; ++k) le[k] = (unsigned char)(bits >> (8 * k));
    { const uint16_t one = 1; unsigned char first; memcpy(&first, &one, 1);
      for (k = 0; k < size; ++k) out[k] = first ? le[k] : le[size - 1 - k]; }
  } else if (ok && (strcmp(type, "float32") == 0 || strcmp(type, "float64") == 0)) {
    double v;
    if (cJSON_IsNumber(fill)) v = fill->valuedouble;
    else if (cJSON_IsString(fill) && strcmp(fill->valuestring, "NaN") == 0) v = NAN; /* the quiet NaN 0x7fc00000 / 0x7ff8...: 0.0 / 0.0 has the sign bit on x86 */
    else if (cJSON_IsString(fill) && strcmp(fill->valuestring, "Infinity") == 0) v = INFINITY;
    else if (cJSON_IsString(fill) && strcmp(fill->valuestring, "-Infinity") == 0) v = -INFINITY;
    else ok = 0;
    if (ok && size == 4) { float f = (float)v; memcpy(out, &f, 4); }
    else if (ok) memcpy(out, &v, 8);
  } else if (ok && strcmp(type, "bool") == 0 && cJSON_IsBool(fill)) {
    out[0] = cJSON_IsTrue(fill) ? 1 : 0;
  } else if (ok && (strncmp(type, "int", 3) == 0 || strncmp(type, "uint", 4) == 0) &&
             cJSON_IsNumber(fill) && size <= 8) {
    /* cJSON keeps numbers as double: exact up to 2^53, which a fill value beyond must be given
     * as "0x" raw bits for this reader. */
    double v = fill->valuedouble;
    int64_t s = (int64_t)v;
    uint64_t u = v < 0 ? (uint64_t)s : (uint64_t)v;
    if (v > 9007199254740992.0 || v < -9007199254740992.0) ok = 0;
    if (size == 1) { uint8_t x = (uint8_t)u; memcpy(out, &x, 1); }
    else if (size == 2) { uint16_t x = (uint16_t)u; memcpy(out, &x, 2); }
    else if (size == 4) { uint32_t x = (uint32_t)u; memcpy(out, &x, 4); }
    else memcpy(out, &u, 8);
  } else if (ok && (cJSON_IsNumber(fill) || cJSON_IsString(fill))) {
    /* Any other type (float16, bfloat16, the float8s...): let zcast cast the float64 value into
     * it (cast_value float64 -> type, nearest-even; NaN and the infinities carry over). */
    char codec_json[160];
    zcast_codec* cast = NULL;
    double v = 0;
    if (cJSON_IsNumber(fill)) v = fill->valuedouble;
    else if (strcmp(fill->valuestring, "NaN") == 0) v = NAN;
    else if (strcmp(fill->valuestring, "Infinity") == 0) v = INFINITY;
    else if (strcmp(fill->valuestring, "-Infinity") == 0) v = -INFINITY;
    else ok = 0;
    snprintf(codec_json, sizeof codec_json,
             "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":%s}}", type_json);
    if (ok && (zcast_codec_create(codec_json, "\"float64\"", NULL, &cast) != ZCAST_OK ||
               zcast_encode(cast, &v, 1, out) != ZCAST_OK))
      ok = 0;
    zcast_codec_destroy(cast);
  } else {
    ok = 0;
  }
  cJSON_Delete(fill);
  if (!ok) return failf(err, "fill value %.64s of data type %.64s: not supported by this reader",
                        fill_json, type_json);
  return 0;
}

static int build_level(rd_level* level, const cJSON* codecs, const char* type_json,
                       const char* fill_json, const char* where, char* err);

/* The sharding_indexed configuration of `level` (codec `index` of its codecs). */
static int build_sharding(rd_level* level, const cJSON* codec, const char* where, char* err) {
  const cJSON* conf = codec_configuration(codec);
  const cJSON *index_codecs, *location, *item;
  char inner_where[512];
  int d, k = 0;
  if (!cJSON_IsObject(conf)) return failf(err, "%s: sharding_indexed has no configuration%s", where, "");
  level->inner = (rd_level*)calloc(1, sizeof(rd_level));
  if (!level->inner) return failf(err, "%s: out of memory%s", where, "");
  level->inner->ndim = level->ndim;
  if (read_shape(cJSON_GetObjectItemCaseSensitive(conf, "chunk_shape"), level->ndim,
                 level->inner->chunk_shape, 0) != 0)
    return failf(err, "%s: sharding_indexed: \"chunk_shape\" must hold one positive integer per "
                 "dimension%s", where, "");
  level->inner_count = 1;
  for (d = 0; d < level->ndim; ++d) {
    if (level->chunk_shape[d] % level->inner->chunk_shape[d] != 0)
      return failf(err, "%s: sharding_indexed: the inner chunk shape does not divide the shard "
                   "shape%s", where, "");
    level->inner_per_shard[d] = level->chunk_shape[d] / level->inner->chunk_shape[d];
    level->inner_count *= (size_t)level->inner_per_shard[d];
  }
  location = cJSON_GetObjectItemCaseSensitive(conf, "index_location");
  level->index_at_end = !location || (cJSON_IsString(location) &&
                                      strcmp(location->valuestring, "end") == 0);
  if (location && !level->index_at_end &&
      !(cJSON_IsString(location) && strcmp(location->valuestring, "start") == 0))
    return failf(err, "%s: sharding_indexed: \"index_location\" must be \"start\" or \"end\"%s",
                 where, "");
  /* The index codecs this reader takes: bytes, then optionally crc32c. */
  index_codecs = cJSON_GetObjectItemCaseSensitive(conf, "index_codecs");
  cJSON_ArrayForEach(item, index_codecs) {
    const char* name = codec_name(item);
    if (k == 0 && name && strcmp(name, "bytes") == 0) {
      level->index_big_endian = bytes_is_big_endian(item, where, err);
      if (level->index_big_endian < 0) return -1;
    } else if (k == 1 && name && strcmp(name, "crc32c") == 0) {
      level->index_crc32c = 1;
    } else {
      return failf(err, "%s: sharding_indexed: index codec %s is not supported by this reader "
                   "(it reads bytes, optionally followed by crc32c)", where, name ? name : "?");
    }
    ++k;
  }
  if (!cJSON_IsArray(index_codecs) || k == 0)
    return failf(err, "%s: sharding_indexed: \"index_codecs\" must start with bytes%s", where, "");
  snprintf(inner_where, sizeof inner_where, "%s: sharding_indexed: codecs", where);
  return build_level(level->inner, cJSON_GetObjectItemCaseSensitive(conf, "codecs"),
                     level->enc_type, zcast_chain_encoded_fill_value(level->chain), inner_where,
                     err);
}

/* One codec level: `codecs` decode chunks of level->chunk_shape (set by the caller) holding the
 * data type `type_json` with the fill value `fill_json`. */
static int build_level(rd_level* level, const cJSON* codecs, const char* type_json,
                       const char* fill_json, const char* where, char* err) {
  char* codecs_json;
  cJSON *rest = NULL, *item;
  const char* next;
  int k = 0, d, rc = -1;
  if (!cJSON_IsArray(codecs) || cJSON_GetArraySize(codecs) == 0)
    return failf(err, "%s: must be a non-empty array of codecs%s", where, "");
  /* A chunk must fit in memory several times over (16-byte elements): refuse shapes whose size
   * would overflow instead of allocating a wrapped-around size. */
  level->chunk_elements = 1;
  for (d = 0; d < level->ndim; ++d) {
    if (level->chunk_shape[d] > ((size_t)-1 >> 6) / level->chunk_elements)
      return failf(err, "%s: the chunk shape is too large for this reader%s", where, "");
    level->chunk_elements *= (size_t)level->chunk_shape[d];
  }
  codecs_json = cJSON_PrintUnformatted(codecs);
  if (!codecs_json) return failf(err, "%s: out of memory%s", where, "");
  if (zcast_chain_create_from_codecs(codecs_json, type_json, fill_json, &level->chain) != ZCAST_OK) {
    failf(err, "%s: %s", where, zcast_last_error());
    free(codecs_json);
    return -1;
  }
  free(codecs_json);
  next = zcast_chain_next_codec(level->chain, &level->codec_index);
  level->chain_owns_codecs = level->codec_index > 0;
  level->enc_size = zcast_chain_encoded_element_size(level->chain);
  level->dec_size = zcast_chain_decoded_element_size(level->chain);
  snprintf(level->enc_type, sizeof level->enc_type, "%s", zcast_chain_encoded_data_type(level->chain));
  snprintf(level->dec_type, sizeof level->dec_type, "%s", zcast_chain_decoded_data_type(level->chain));
  if (!next) return failf(err, "%s: no array -> bytes codec (bytes or sharding_indexed)%s", where, "");
  snprintf(level->codec_desc, sizeof level->codec_desc, "%s", next);
  if (level->enc_size > 16 || level->dec_size > 16)
    return failf(err, "%s: data type %s: elements over 16 bytes are not supported by this reader",
                 where, level->enc_type);
  /* The fill value reaching the array -> bytes codec, and the level's own (decoded) one: the
   * chain's decode of the first, which R9 makes equal to the array's fill value. */
  if (!zcast_chain_encoded_fill_value(level->chain))
    return failf(err, "%s: the array has no fill value%s", where, "");
  if (parse_fill(level->enc_type, zcast_chain_encoded_fill_value(level->chain), level->enc_size,
                 level->enc_fill, err) != 0)
    return -1;
  if (!level->chain_owns_codecs) {
    memcpy(level->dec_fill, level->enc_fill, 16);
  } else if (zcast_chain_decode(level->chain, level->enc_fill, 1, level->dec_fill) != ZCAST_OK) {
    return failf(err, "%s: the fill value does not decode: %s", where, zcast_last_error());
  }

  rest = cJSON_Parse(zcast_chain_remaining_codecs(level->chain));
  cJSON_ArrayForEach(item, rest) {
    const char* name = codec_name(item);
    char at[600];
    snprintf(at, sizeof at, "%s[%llu]", where, (ull)(level->codec_index + (size_t)k));
    if (!name) { failf(err, "%s: a codec without a name%s", at, ""); goto done; }
    if (k == 0) { /* the array -> bytes codec */
      if (strcmp(name, "bytes") == 0) {
        level->big_endian = bytes_is_big_endian(item, at, err);
        if (level->big_endian < 0) goto done;
      } else if (strcmp(name, "sharding_indexed") == 0) {
        if (build_sharding(level, item, at, err) != 0) goto done;
      } else {
        failf(err, "%s: codec \"%.64s\" is not supported by this reader (it reads the array -> "
              "bytes codecs bytes and sharding_indexed)", at, name);
        goto done;
      }
    } else {
      rd_compressor c;
      if (strcmp(name, "blosc") == 0) c = RD_BLOSC;
      else if (strcmp(name, "zstd") == 0) c = RD_ZSTD;
      else if (strcmp(name, "gzip") == 0) c = RD_GZIP;
      else if (strcmp(name, "crc32c") == 0) c = RD_CRC32C;
      else {
        failf(err, "%s: unknown codec \"%.64s\" (this reader undoes blosc, zstd, gzip and "
              "crc32c)", at, name);
        goto done;
      }
      if (level->n_compressors == RD_MAX_COMPRESSORS) {
        failf(err, "%s: too many codecs%s", at, "");
        goto done;
      }
      level->compressors[level->n_compressors++] = c;
    }
    ++k;
  }
  rc = 0;
done:
  cJSON_Delete(rest);
  return rc;
}

int rd_array_open(const char* path, rd_array* array, char* err) {
  char meta_path[4200], where[4300];
  struct stat st;
  char *text, *type_json = NULL, *fill_json = NULL;
  size_t text_size = 0;
  cJSON *doc, *node, *conf;
  int rc = -1;
  size_t n = strlen(path);
  memset(array, 0, sizeof *array);
  if (n >= sizeof array->dir - 16) return failf(err, "%s: path too long%s", path, "");
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(array->dir, sizeof array->dir, "%s", path);
    snprintf(meta_path, sizeof meta_path, "%s/zarr.json", path);
  } else { /* the zarr.json itself: the array's directory is the one holding it */
    const char* slash = strrchr(path, '/');
    snprintf(meta_path, sizeof meta_path, "%s", path);
    if (slash) snprintf(array->dir, sizeof array->dir, "%.*s", (int)(slash - path), path);
    else snprintf(array->dir, sizeof array->dir, ".");
  }
  text = (char*)rd_read_file(meta_path, &text_size);
  if (!text) return failf(err, "%s: cannot read%s", meta_path, "");
  doc = cJSON_Parse(text);
  free(text);
  snprintf(where, sizeof where, "%s", meta_path);
  if (!cJSON_IsObject(doc)) { failf(err, "%s: not a JSON object%s", where, ""); goto done; }
  node = cJSON_GetObjectItemCaseSensitive(doc, "zarr_format");
  if (!cJSON_IsNumber(node) || node->valuedouble != 3) {
    failf(err, "%s: \"zarr_format\" is not 3 (this reader reads Zarr v3 arrays)%s", where, "");
    goto done;
  }
  node = cJSON_GetObjectItemCaseSensitive(doc, "shape");
  array->ndim = cJSON_IsArray(node) ? cJSON_GetArraySize(node) : -1;
  if (array->ndim < 1 || array->ndim > RD_MAX_DIMS ||
      read_shape(node, array->ndim, array->shape, 1) != 0) {
    failf(err, "%s: \"shape\" must hold 1 to 8 non-negative integers%s", where, "");
    goto done;
  }
  node = cJSON_GetObjectItemCaseSensitive(doc, "chunk_grid");
  conf = cJSON_GetObjectItemCaseSensitive(node, "configuration");
  if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(node, "name")) ||
      strcmp(cJSON_GetObjectItemCaseSensitive(node, "name")->valuestring, "regular") != 0 ||
      read_shape(cJSON_GetObjectItemCaseSensitive(conf, "chunk_shape"), array->ndim,
                 array->top.chunk_shape, 0) != 0) {
    failf(err, "%s: \"chunk_grid\" must be regular with one positive chunk size per "
          "dimension%s", where, "");
    goto done;
  }
  array->top.ndim = array->ndim;
  array->separator = '/';
  node = cJSON_GetObjectItemCaseSensitive(doc, "chunk_key_encoding");
  if (node) {
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(node, "name");
    const cJSON* sep = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(node, "configuration"), "separator");
    array->v2_keys = cJSON_IsString(name) && strcmp(name->valuestring, "v2") == 0;
    if (array->v2_keys) array->separator = '.';
    if (!cJSON_IsString(name) || (!array->v2_keys && strcmp(name->valuestring, "default") != 0)) {
      failf(err, "%s: \"chunk_key_encoding\" must be default or v2%s", where, "");
      goto done;
    }
    if (cJSON_IsString(sep) && (strcmp(sep->valuestring, "/") == 0 || strcmp(sep->valuestring, ".") == 0))
      array->separator = sep->valuestring[0];
    else if (sep) { failf(err, "%s: chunk key separator must be \"/\" or \".\"%s", where, ""); goto done; }
  }
  type_json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(doc, "data_type"));
  node = cJSON_GetObjectItemCaseSensitive(doc, "fill_value");
  fill_json = node ? cJSON_PrintUnformatted(node) : NULL;
  if (!type_json) { failf(err, "%s: no \"data_type\"%s", where, ""); goto done; }
  snprintf(where, sizeof where, "%s: codecs", meta_path);
  rc = build_level(&array->top, cJSON_GetObjectItemCaseSensitive(doc, "codecs"), type_json,
                   fill_json, where, err);
done:
  free(type_json);
  free(fill_json);
  cJSON_Delete(doc);
  return rc;
}

static void level_close(rd_level* level) {
  if (level->inner) {
    level_close(level->inner);
    free(level->inner);
  }
  zcast_chain_destroy(level->chain);
  memset(level, 0, sizeof *level);
}

void rd_array_close(rd_array* array) { level_close(&array->top); }
