// zcast: the exact Zarr v3 `cast_value` codec and its companion `scale_offset`, C++ interface.
//
// A codec goes through three stages, each decision made once:
//   1. CastValueSpec::FromJson   parses and validates the codec metadata alone (R11-R13);
//   2. CastValueCodec::Bind      binds it to the array's data type and fill value: parses the
//                                scalar maps into typed values, checks the fill-value round trip
//                                (R9) and picks the encode and decode kernels;
//   3. Encode / Decode           run the chosen kernels over contiguous native-endian buffers.
//
//   auto spec = zcast::CastValueSpec::FromJson(
//       R"({"name": "cast_value", "configuration": {"data_type": "uint8", "out_of_range": "clamp"}})");
//   auto codec = zcast::CastValueCodec::Bind(*spec, zcast::DataType::float32, "\"NaN\"");
//   // -> error: NaN has no representation in uint8 (R3); with a scalar_map ["NaN", 0] it binds.
//   zcast::Status st = codec->Encode(floats, n, bytes);
//
// ScaleOffsetSpec / ScaleOffsetCodec follow the same three stages. Chain reads an array's whole
// zarr.json and runs its leading scale_offset / cast_value codecs as one (see below).
//
// This header depends on the standard library only; nothing here throws.
#ifndef ZCAST_ZCAST_HPP_
#define ZCAST_ZCAST_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#if defined(_WIN32)
#define ZCAST_API
#else
#define ZCAST_API __attribute__((visibility("default")))
#endif

namespace zcast {

// The single list of data types. Columns: Zarr name, storage bytes, kind (Int, Uint, Float),
// value bits (ints: N; floats: 1 + E + M, or 8 for e8m0fnu), exponent bits E, mantissa bits M,
// bias, and the special-value layout of floats:
//   Ieee  exponent field of all 1s holds Inf (mantissa 0) and NaN (mantissa != 0); has -0;
//   Fn    no Inf, no NaN, every encoding finite; has -0;
//   Fnuz  no Inf, NaN is 0x80 only, no -0; exponent field of all 1s is an ordinary binade;
//   E8m0  unsigned powers of two 2^-127..2^127, NaN is 0xFF, no zero (R6).
// Adding a type is one line here (and a dtype mapping in the Python package).
#define ZCAST_FOR_EACH_DATA_TYPE(X)               \
  X(int2, 1, Int, 2, 0, 0, 0, None)               \
  X(int4, 1, Int, 4, 0, 0, 0, None)               \
  X(int8, 1, Int, 8, 0, 0, 0, None)               \
  X(int16, 2, Int, 16, 0, 0, 0, None)             \
  X(int32, 4, Int, 32, 0, 0, 0, None)             \
  X(int64, 8, Int, 64, 0, 0, 0, None)             \
  X(uint2, 1, Uint, 2, 0, 0, 0, None)             \
  X(uint4, 1, Uint, 4, 0, 0, 0, None)             \
  X(uint8, 1, Uint, 8, 0, 0, 0, None)             \
  X(uint16, 2, Uint, 16, 0, 0, 0, None)           \
  X(uint32, 4, Uint, 32, 0, 0, 0, None)           \
  X(uint64, 8, Uint, 64, 0, 0, 0, None)           \
  X(float4_e2m1fn, 1, Float, 4, 2, 1, 1, Fn)      \
  X(float6_e2m3fn, 1, Float, 6, 2, 3, 1, Fn)      \
  X(float6_e3m2fn, 1, Float, 6, 3, 2, 3, Fn)      \
  X(float8_e3m4, 1, Float, 8, 3, 4, 3, Ieee)      \
  X(float8_e4m3, 1, Float, 8, 4, 3, 7, Ieee)      \
  X(float8_e4m3b11fnuz, 1, Float, 8, 4, 3, 11, Fnuz) \
  X(float8_e4m3fnuz, 1, Float, 8, 4, 3, 8, Fnuz)  \
  X(float8_e5m2, 1, Float, 8, 5, 2, 15, Ieee)     \
  X(float8_e5m2fnuz, 1, Float, 8, 5, 2, 16, Fnuz) \
  X(float8_e8m0fnu, 1, Float, 8, 8, 0, 127, E8m0) \
  X(bfloat16, 2, Float, 16, 8, 7, 127, Ieee)      \
  X(float16, 2, Float, 16, 5, 10, 15, Ieee)       \
  X(float32, 4, Float, 32, 8, 23, 127, Ieee)      \
  X(float64, 8, Float, 64, 11, 52, 1023, Ieee)

enum class DataType : std::uint8_t {
#define ZCAST_ENUM_ENTRY(name, ...) name,
  ZCAST_FOR_EACH_DATA_TYPE(ZCAST_ENUM_ENTRY)
#undef ZCAST_ENUM_ENTRY
};

inline constexpr int kNumDataTypes = 26;

// The Zarr name, e.g. "float8_e4m3".
ZCAST_API std::string_view DataTypeName(DataType type);
// Inverse of DataTypeName; nullopt for a name that is not one of the 26.
ZCAST_API std::optional<DataType> DataTypeFromName(std::string_view name);
// Bytes per element in memory (sub-byte types use one byte, value in the low bits).
ZCAST_API std::size_t DataTypeSize(DataType type);

// The SIMD target this process's kernels use, by Highway's name ("AVX2", "AVX3_DL", "NEON", ...,
// or "baseline"): the best the CPU supports, capped by ZCAST_SIMD_TARGET=NAME (zcast.h).
ZCAST_API std::string_view SimdTarget();
// The targets compiled into the library, and those this CPU supports; worst first, "baseline"
// first.
ZCAST_API std::vector<std::string_view> SimdTargetsCompiled();
ZCAST_API std::vector<std::string_view> SimdTargetsSupported();

enum class Rounding : std::uint8_t {
  kNearestEven,
  kNearestAway,
  kTowardsZero,
  kTowardsPositive,
  kTowardsNegative,
};
enum class OutOfRange : std::uint8_t { kUnset, kClamp, kWrap };

ZCAST_API std::string_view RoundingName(Rounding rounding);
ZCAST_API std::string_view OutOfRangeName(OutOfRange out_of_range);  // "" for kUnset

// Status codes share their values with the C API's zcast_status.
enum class StatusCode : int {
  kOk = 0,
  kInvalidMetadata = 1,
  kCastFailed = 2,
  kInvalidArgument = 3,
  kInternal = 4,
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains its absence.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}      // NOLINT: must not be ok
  bool ok() const { return v_.index() == 0; }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<1>(v_);
  }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

// The parsed, unbound configuration of one cast_value codec. Scalar-map entries are kept as JSON
// text until Bind, because their types depend on the array's data type.
struct ZCAST_API CastValueSpec {
  DataType data_type = DataType::float32;
  std::optional<Rounding> rounding;  // nullopt: absent, meaning nearest-even
  OutOfRange out_of_range = OutOfRange::kUnset;
  bool has_scalar_map = false;
  // Each entry is the JSON text of one [input, output] pair's members, in document order.
  std::optional<std::vector<std::pair<std::string, std::string>>> encode_map;
  std::optional<std::vector<std::pair<std::string, std::string>>> decode_map;

  Rounding effective_rounding() const { return rounding.value_or(Rounding::kNearestEven); }

  // Parses {"name": "cast_value", "configuration": {...}} strictly (R11-R13): unknown keys,
  // wrong JSON types, unknown enumeration strings and wrap into a non-integer type are rejected
  // with a kInvalidMetadata Status naming the key and value.
  static Result<CastValueSpec> FromJson(std::string_view codec_json);
  // The codec metadata, defaults omitted, data_type as a string (R12, R13).
  std::string ToJson() const;
};

// A cast_value codec bound to an array's data type and fill value. Immutable and thread-safe:
// one codec may encode and decode from many threads at once.
class ZCAST_API CastValueCodec {
 public:
  // Binds `spec` to the array data type (the decoded side). `fill_value_json` is the array's fill
  // value as JSON text, or nullopt when there is none. Validates the scalar maps against both types
  // (R11), checks decode(encode(fill)) == fill (R9), and chooses the kernels.
  static Result<CastValueCodec> Bind(const CastValueSpec& spec, DataType array_type,
                                     std::optional<std::string_view> fill_value_json);

  const CastValueSpec& spec() const;
  DataType decoded_type() const;  // the array's data type
  DataType encoded_type() const;  // spec().data_type
  // encode(fill) as JSON text (R9), or nullopt when bound without a fill value.
  const std::optional<std::string>& encoded_fill_value_json() const;

  // Casts n elements from `in` (decoded_type) to `out` (encoded_type), both contiguous and
  // native-endian; the buffers must not overlap. On failure returns kCastFailed naming the first
  // failing element's index, value, the types and the reason; `out` is then unspecified.
  Status Encode(const void* in, std::size_t n, void* out) const;
  // The inverse direction: encoded_type -> decoded_type, with scalar_map.decode.
  Status Decode(const void* in, std::size_t n, void* out) const;

  struct State;  // internal: typed maps, kernels

 private:
  explicit CastValueCodec(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

// ---- scale_offset (companion codec, semantics.md "scale_offset") ----
//
//   auto spec = zcast::ScaleOffsetSpec::FromJson(
//       R"({"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}})");
//   auto codec = zcast::ScaleOffsetCodec::Bind(*spec, zcast::DataType::float64, "\"NaN\"");
//   codec->Encode(reflectance, n, scaled);  // (x - offset) * scale, float64 arithmetic

// The parsed, unbound configuration of one scale_offset codec. offset and scale are kept as JSON
// text until Bind, because they are scalars of the array's data type.
struct ZCAST_API ScaleOffsetSpec {
  std::optional<std::string> offset;  // nullopt: absent (no subtraction / addition, R21)
  std::optional<std::string> scale;   // nullopt: absent (no multiplication / division, R21)
  bool has_configuration = true;      // false for {"name": "scale_offset"} (R21)

  // Parses {"name": "scale_offset", "configuration": {"offset": s, "scale": s}} strictly (R13):
  // unknown keys and offset/scale values that are not JSON numbers or strings are rejected with a
  // kInvalidMetadata Status naming the key and value. Whether a value is a valid scalar of the
  // array's type is checked by Bind.
  static Result<ScaleOffsetSpec> FromJson(std::string_view codec_json);
  // The codec metadata as read: omitted members stay omitted, values keep their JSON text.
  std::string ToJson() const;
};

// A scale_offset codec bound to an array's data type and fill value. encode: (x - offset) * scale,
// decode: x / scale + offset, each operation exact and then rounded once to the array's type
// (floats: nearest-even; integers: exact, an out-of-range intermediate is an error). Immutable and
// thread-safe, like CastValueCodec.
class ZCAST_API ScaleOffsetCodec {
 public:
  // Parses offset and scale as scalars of `array_type` (finite; scale non-zero: R22) and
  // transforms the fill value (JSON text, or nullopt) with the encode formula; encode(fill) and
  // decode(encode(fill)) must succeed, equality is not required (R20). Any failure is
  // kInvalidMetadata naming the key and value.
  static Result<ScaleOffsetCodec> Bind(const ScaleOffsetSpec& spec, DataType array_type,
                                       std::optional<std::string_view> fill_value_json);

  const ScaleOffsetSpec& spec() const;
  DataType decoded_type() const;  // the array's data type
  DataType encoded_type() const;  // the same type: scale_offset does not change it
  // encode(fill) as JSON text, or nullopt when bound without a fill value.
  const std::optional<std::string>& encoded_fill_value_json() const;

  // (x - offset) * scale on n elements, `in` and `out` contiguous, native-endian and not
  // overlapping. NaN passes through unchanged (same encoding, R23), +-Inf propagates. On failure
  // returns kCastFailed naming the first failing element's index, its value, the type and the
  // reason (overflow of a step, R24); `out` is then unspecified.
  Status Encode(const void* in, std::size_t n, void* out) const;
  // x / scale + offset; for integer types a division with a remainder is an error.
  Status Decode(const void* in, std::size_t n, void* out) const;

  struct State;  // internal: typed parameters, kernels

 private:
  explicit ScaleOffsetCodec(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

// ---- the array -> array chain of an array's codecs ----
//
// Resolves the leading array -> array codecs that zcast owns (scale_offset, cast_value and the
// legacy numcodecs.fixedscaleoffset, read as [scale_offset, cast_value{out_of_range: "wrap"}])
// into one object. The codecs after them (bytes, compressors, sharding, ...) are the reader's
// business; the chain says where they start.
//
//   auto chain = zcast::Chain::FromArrayMetadata(zarr_json_text);
//   // chain->encoded_type(): what the array -> bytes codec (chain->first_unowned_name()) holds
//   chain->Decode(chunk_elements, n, array_elements);
//
// A scale_offset followed by cast_value (indeed every run of owned codecs) is executed block by
// block through a small stack buffer, one pass over memory; values and errors are identical to
// running the codecs one after the other.
class ZCAST_API Chain {
 public:
  using Step = std::variant<ScaleOffsetCodec, CastValueCodec>;

  // Reads a Zarr v3 array's whole zarr.json: "data_type", "fill_value" and "codecs" (other members
  // are not examined, except that "zarr_format", if present, must be 3 and "node_type", if
  // present, "array"). kInvalidMetadata names the codec index and key on failure.
  static Result<Chain> FromArrayMetadata(std::string_view zarr_json);
  // The same from the parts, e.g. for the inner "codecs" of sharding_indexed: `codecs_json` is a
  // JSON array of codec metadata; `fill_value_json` nullopt for none.
  static Result<Chain> FromCodecs(DataType array_type,
                                  std::optional<std::string_view> fill_value_json,
                                  std::string_view codecs_json);

  DataType decoded_type() const;  // the array's data type
  DataType encoded_type() const;  // the data type handed to the first codec not owned
  // The fill value handed to the first codec not owned (canonical JSON), nullopt without one.
  const std::optional<std::string>& encoded_fill_value_json() const;
  // The bound codecs in encode order (numcodecs.fixedscaleoffset contributes two).
  const std::vector<Step>& steps() const;
  // Index in "codecs" of the first codec the chain does not own, and its name ("bytes",
  // "sharding_indexed", ...); the number of codecs and "" when it owns them all.
  std::size_t first_unowned_index() const;
  const std::string& first_unowned_name() const;
  // codecs[first_unowned_index():] as compact JSON (an array, possibly empty).
  const std::string& remaining_codecs_json() const;

  // Encodes n elements of decoded_type() at `in` into encoded_type() at `out` (contiguous,
  // native-endian, not overlapping). Errors as the codecs report them (kCastFailed, first failing
  // element of the first failing codec); when a later codec fails, the message adds the caller's
  // input element (type and value) and labels the value it quotes as intermediate. `out` is then
  // unspecified.
  Status Encode(const void* in, std::size_t n, void* out) const;
  Status Decode(const void* in, std::size_t n, void* out) const;

  struct State;  // internal

 private:
  explicit Chain(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

}  // namespace zcast

#endif  // ZCAST_ZCAST_HPP_
