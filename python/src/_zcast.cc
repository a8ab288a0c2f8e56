// zcast._zcast: the Python extension module, a thin layer over the public C++ API (zcast.hpp):
// cast_value (Spec, Codec), its companion scale_offset (ScaleOffsetSpec, ScaleOffsetCodec) and
// the array -> array chain of an array's metadata (Chain).
//
// Everything Python-specific (dtype mapping, JSON building, memory layouts, error index tuples,
// caching) lives in the pure-Python package; this file only moves bytes and statuses across:
//
//   spec = _zcast.Spec.from_json('{"name": "cast_value", "configuration": {"data_type": "uint8"}}')
//   codec = _zcast.Codec.bind(spec, "float32", None)
//   codec.encode(src, dst)   # C-contiguous numpy arrays (or byte buffers), GIL released
//
// A failed Status becomes zcast.MetadataError or zcast.CastError (both defined in Python, in
// zcast/_errors.py, so that the package can add context such as the element's index tuple).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zcast/json.h"  // the core's strict JSON reader (check_json, zcast inspect); BriefQuote (R34)
#include "zcast/zcast.h"    // zcast_version(): the library's own version, CMake's project version
#include "zcast/zcast.hpp"

namespace py = pybind11;

namespace {

// Raises the Python exception that corresponds to a failed Status. The exception classes are
// looked up at raise time rather than cached in statics: failures are rare, and a static
// py::object would outlive the interpreter at shutdown.
[[noreturn]] void ThrowStatus(const zcast::Status& status) {
  const char* class_name = nullptr;
  switch (status.code()) {
    case zcast::StatusCode::kInvalidMetadata:
      class_name = "MetadataError";
      break;
    case zcast::StatusCode::kCastFailed:
      class_name = "CastError";
      break;
    case zcast::StatusCode::kInvalidArgument:
      throw py::value_error(status.message());
    case zcast::StatusCode::kOk:  // a caller bug: an ok Status is never thrown
    case zcast::StatusCode::kInternal:
      break;
  }
  if (class_name == nullptr) {
    throw std::runtime_error("zcast internal error: " + status.message());
  }
  py::object error_class = py::module_::import("zcast._errors").attr(class_name);
  // The message goes over as a sized str (never as a C string, which a NUL would cut short).
  // A failing element's flat index in the buffer of this call (Status::failing_element()) is the
  // attribute `element`; CastError.index stays None here: zcast._api sets it to the index tuple
  // in the caller's array.
  py::object error = error_class(py::str(status.message()));
  if (status.failing_element()) error.attr("element") = *status.failing_element();
  PyErr_SetObject(error_class.ptr(), error.ptr());
  throw py::error_already_set();
}

template <typename T>
T Unwrap(zcast::Result<T> result) {
  if (!result.ok()) ThrowStatus(result.status());
  return std::move(result).value();
}

zcast::DataType DataTypeFromNameOrThrow(std::string_view name) {
  std::optional<zcast::DataType> type = zcast::DataTypeFromName(name);
  if (!type) {
    ThrowStatus(zcast::Status(zcast::StatusCode::kInvalidMetadata,
                              "unsupported data type " + zcast::internal::BriefQuote(name) +
                                  " (cast_value supports 26 integer and float types)"));
  }
  return *type;
}

// The buffers handed over by the Python layer are flat, C-contiguous byte views; anything else
// is a bug in the caller, reported as ValueError rather than read out of bounds.
py::buffer_info RequestContiguous(const py::buffer& buffer, bool writable, const char* what) {
  py::buffer_info info = buffer.request(writable);
  py::ssize_t expected_stride = info.itemsize;
  for (py::ssize_t i = info.ndim - 1; i >= 0; --i) {
    if (info.shape[i] > 1 && info.strides[i] != expected_stride) {
      throw py::value_error(std::string(what) + " buffer must be C-contiguous");
    }
    expected_stride *= info.shape[i];
  }
  return info;
}

// Checks that `in_bytes` hold whole elements of `from` and `out_bytes` as many of `to`; returns
// the element count.
std::size_t ElementCount(std::size_t in_bytes, std::size_t out_bytes, zcast::DataType from,
                         zcast::DataType to) {
  const std::size_t in_size = zcast::DataTypeSize(from);
  const std::size_t out_size = zcast::DataTypeSize(to);
  if (in_bytes % in_size != 0) {
    throw py::value_error("source buffer of " + std::to_string(in_bytes) +
                          " bytes is not a whole number of " +
                          std::string(zcast::DataTypeName(from)) + " elements");
  }
  const std::size_t n = in_bytes / in_size;
  if (out_bytes != n * out_size) {
    throw py::value_error("destination buffer has " + std::to_string(out_bytes) +
                          " bytes, expected " + std::to_string(n * out_size) + " for " +
                          std::to_string(n) + " " + std::string(zcast::DataTypeName(to)) +
                          " elements");
  }
  return n;
}

template <typename Codec>
using CastFn = zcast::Status (Codec::*)(const void*, std::size_t, void*) const;

// Runs `fn` of a bound codec over `n` elements with the GIL released. The core's casts take
// buffers that do not overlap: an array cast into itself (or a view of itself) reads from a copy
// of its source. The caller keeps both buffers alive: numpy refuses to resize an array with
// exported buffers or live references.
template <typename Codec>
void CastBytes(const Codec& codec, CastFn<Codec> fn, const void* in, std::size_t in_bytes,
               std::size_t n, void* out, std::size_t out_bytes) {
  const auto* in_ptr = static_cast<const unsigned char*>(in);
  const auto* out_ptr = static_cast<const unsigned char*>(out);
  std::vector<unsigned char> copy;
  if (n != 0 && in_ptr < out_ptr + out_bytes && out_ptr < in_ptr + in_bytes) {
    copy.assign(in_ptr, in_ptr + in_bytes);
    in = copy.data();
  }
  zcast::Status status;
  {
    py::gil_scoped_release release;
    status = (codec.*fn)(in, n, out);
  }
  if (!status.ok()) ThrowStatus(status);
}

// A numpy array is read through its own data pointer, not the buffer protocol: numpy exports no
// buffer for ml_dtypes' types (bfloat16, the float8s), and a Python-side byte view, the overlap
// check and the flat reshape were most of a 1,024-element call. Any other buffer (bytes,
// memoryview, array.array) must be a C-contiguous one.
template <typename Codec>
void RunCast(const Codec& codec, CastFn<Codec> fn, zcast::DataType from, zcast::DataType to,
             const py::object& src, const py::object& dst) {
  if (py::isinstance<py::array>(src) && py::isinstance<py::array>(dst)) {
    const auto in = py::reinterpret_borrow<py::array>(src);
    auto out = py::reinterpret_borrow<py::array>(dst);
    if (!(in.flags() & py::array::c_style)) {
      throw py::value_error("source array must be C-contiguous");
    }
    if (!(out.flags() & py::array::c_style)) {
      throw py::value_error("destination array must be C-contiguous");
    }
    if (!out.writeable()) throw py::value_error("destination array is read-only");
    const auto in_bytes = static_cast<std::size_t>(in.nbytes());
    const auto out_bytes = static_cast<std::size_t>(out.nbytes());
    const std::size_t n = ElementCount(in_bytes, out_bytes, from, to);
    CastBytes(codec, fn, in.data(), in_bytes, n, out.mutable_data(), out_bytes);
    return;
  }
  py::buffer_info in = RequestContiguous(py::reinterpret_borrow<py::buffer>(src),
                                         /*writable=*/false, "source");
  py::buffer_info out = RequestContiguous(py::reinterpret_borrow<py::buffer>(dst),
                                          /*writable=*/true, "destination");
  const auto in_bytes = static_cast<std::size_t>(in.size * in.itemsize);
  const auto out_bytes = static_cast<std::size_t>(out.size * out.itemsize);
  CastBytes(codec, fn, in.ptr, in_bytes, ElementCount(in_bytes, out_bytes, from, to), out.ptr,
            out_bytes);
}

std::optional<std::string> OptionalName(std::string_view name) {
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

}  // namespace

PYBIND11_MODULE(_zcast, m) {
  m.doc() = "zcast: the exact Zarr v3 cast_value codec (C++ core). Use the zcast package.";
  // The version compiled into the library (CMakeLists.txt's project version), which
  // zcast.__version__ and `zcast --version` report: the same text as the C API's.
  m.attr("__version__") = std::string(zcast_version());

  // The SIMD target in use and the targets compiled / supported (zcast.hpp), by Highway's names.
  m.def("simd_target", [] { return std::string(zcast::SimdTarget()); });
  m.def("simd_targets_compiled", [] {
    std::vector<std::string> names;
    for (std::string_view n : zcast::SimdTargetsCompiled()) names.emplace_back(n);
    return names;
  });
  m.def("simd_targets_supported", [] {
    std::vector<std::string> names;
    for (std::string_view n : zcast::SimdTargetsSupported()) names.emplace_back(n);
    return names;
  });
  m.def("data_type_names", [] {
    py::list names;
    for (int i = 0; i < zcast::kNumDataTypes; ++i) {
      names.append(std::string(zcast::DataTypeName(static_cast<zcast::DataType>(i))));
    }
    return names;
  }, "The Zarr names of the 26 supported data types, in the library's order.");
  m.def("check_json", [](std::string_view text) {
    // The reader every constructor uses (duplicate keys rejected, nesting bounded): a tool that
    // validates metadata must accept and reject exactly what the core does.
    return std::string(
        zcast::internal::JsonTypeName(Unwrap(zcast::internal::ParseJson(text)).type));
  }, "Parses a JSON document with the core's strict reader; returns the top-level type name "
     "(\"object\", \"array\", ...) or raises MetadataError \"invalid JSON at offset N: ...\".");
  m.def("data_type_size", [](std::string_view name) {
    return zcast::DataTypeSize(DataTypeFromNameOrThrow(name));
  }, py::arg("name"), "Bytes per element in memory (sub-byte types use one byte).");

  py::class_<zcast::CastValueSpec>(m, "Spec",
                                   "Parsed, validated cast_value metadata, not yet bound.")
      .def_static("from_json", [](std::string_view json) {
        return Unwrap(zcast::CastValueSpec::FromJson(json));
      }, py::arg("codec_json"),
         "Parses {\"name\": \"cast_value\", \"configuration\": {...}}; raises MetadataError.")
      .def("to_json", &zcast::CastValueSpec::ToJson,
           "The codec metadata as JSON text, defaults omitted.")
      .def_property_readonly("data_type", [](const zcast::CastValueSpec& spec) {
        return std::string(zcast::DataTypeName(spec.data_type));
      })
      .def_property_readonly("rounding", [](const zcast::CastValueSpec& spec) {
        return std::string(zcast::RoundingName(spec.effective_rounding()));
      })
      .def_property_readonly("out_of_range", [](const zcast::CastValueSpec& spec) {
        return OptionalName(zcast::OutOfRangeName(spec.out_of_range));
      });

  py::class_<zcast::CastValueCodec>(m, "Codec",
                                    "A cast_value codec bound to an array data type and fill value.")
      .def_static("bind", [](const zcast::CastValueSpec& spec, std::string_view array_type,
                             std::optional<std::string> fill_value_json) {
        zcast::DataType type = DataTypeFromNameOrThrow(array_type);
        std::optional<std::string_view> fill;
        if (fill_value_json) fill = *fill_value_json;
        return Unwrap(zcast::CastValueCodec::Bind(spec, type, fill));
      }, py::arg("spec"), py::arg("array_type"), py::arg("fill_value_json") = py::none(),
         "Binds a spec to the array's data type (Zarr name) and fill value (JSON text or None).")
      .def_property_readonly("spec", &zcast::CastValueCodec::spec)
      .def_property_readonly("decoded_type", [](const zcast::CastValueCodec& codec) {
        return std::string(zcast::DataTypeName(codec.decoded_type()));
      })
      .def_property_readonly("encoded_type", [](const zcast::CastValueCodec& codec) {
        return std::string(zcast::DataTypeName(codec.encoded_type()));
      })
      .def_property_readonly("encoded_fill_value_json",
                             &zcast::CastValueCodec::encoded_fill_value_json)
      .def("encode", [](const zcast::CastValueCodec& codec, const py::object& src,
                        const py::object& dst) {
        RunCast(codec, &zcast::CastValueCodec::Encode, codec.decoded_type(),
                codec.encoded_type(), src, dst);
      }, py::arg("src"), py::arg("dst"),
         "Array type -> encoded type between C-contiguous arrays or buffers; raises CastError.")
      .def("decode", [](const zcast::CastValueCodec& codec, const py::object& src,
                        const py::object& dst) {
        RunCast(codec, &zcast::CastValueCodec::Decode, codec.encoded_type(),
                codec.decoded_type(), src, dst);
      }, py::arg("src"), py::arg("dst"),
         "Encoded type -> array type between C-contiguous arrays or buffers; raises CastError.");

  // scale_offset, the companion codec: same shape of API, the data type does not change.
  py::class_<zcast::ScaleOffsetSpec>(m, "ScaleOffsetSpec",
                                     "Parsed, validated scale_offset metadata, not yet bound.")
      .def_static("from_json", [](std::string_view json) {
        return Unwrap(zcast::ScaleOffsetSpec::FromJson(json));
      }, py::arg("codec_json"),
         "Parses {\"name\": \"scale_offset\", \"configuration\": {...}}; raises MetadataError.")
      .def("to_json", &zcast::ScaleOffsetSpec::ToJson,
           "The codec metadata as JSON text, as read (omitted members stay omitted).");

  py::class_<zcast::ScaleOffsetCodec>(m, "ScaleOffsetCodec",
                                      "A scale_offset codec bound to an array data type and fill.")
      .def_static("bind", [](const zcast::ScaleOffsetSpec& spec, std::string_view array_type,
                             std::optional<std::string> fill_value_json) {
        zcast::DataType type = DataTypeFromNameOrThrow(array_type);
        std::optional<std::string_view> fill;
        if (fill_value_json) fill = *fill_value_json;
        return Unwrap(zcast::ScaleOffsetCodec::Bind(spec, type, fill));
      }, py::arg("spec"), py::arg("array_type"), py::arg("fill_value_json") = py::none())
      .def_property_readonly("spec", &zcast::ScaleOffsetCodec::spec)
      .def_property_readonly("decoded_type", [](const zcast::ScaleOffsetCodec& codec) {
        return std::string(zcast::DataTypeName(codec.decoded_type()));
      })
      .def_property_readonly("encoded_type", [](const zcast::ScaleOffsetCodec& codec) {
        return std::string(zcast::DataTypeName(codec.encoded_type()));
      })
      .def_property_readonly("encoded_fill_value_json",
                             &zcast::ScaleOffsetCodec::encoded_fill_value_json)
      .def("encode", [](const zcast::ScaleOffsetCodec& codec, const py::object& src,
                        const py::object& dst) {
        RunCast(codec, &zcast::ScaleOffsetCodec::Encode, codec.decoded_type(),
                codec.encoded_type(), src, dst);
      }, py::arg("src"), py::arg("dst"), "(x - offset) * scale; raises CastError.")
      .def("decode", [](const zcast::ScaleOffsetCodec& codec, const py::object& src,
                        const py::object& dst) {
        RunCast(codec, &zcast::ScaleOffsetCodec::Decode, codec.encoded_type(),
                codec.decoded_type(), src, dst);
      }, py::arg("src"), py::arg("dst"), "x / scale + offset; raises CastError.");

  // The chain: the leading scale_offset / cast_value / numcodecs.fixedscaleoffset codecs of an
  // array's metadata, bound once and run fused. `steps` are the bound codecs above, in encode
  // order (copies share the immutable state).
  py::class_<zcast::Chain>(m, "Chain",
                           "The leading array -> array codecs zcast owns, bound and fused.")
      .def_static("from_array_metadata", [](std::string_view zarr_json) {
        return Unwrap(zcast::Chain::FromArrayMetadata(zarr_json));
      }, py::arg("zarr_json"), "From a whole zarr.json text; raises MetadataError.")
      .def_static("from_codecs", [](std::string_view codecs_json, std::string_view array_type,
                                    std::optional<std::string> fill_value_json) {
        zcast::DataType type = DataTypeFromNameOrThrow(array_type);
        std::optional<std::string_view> fill;
        if (fill_value_json) fill = *fill_value_json;
        return Unwrap(zcast::Chain::FromCodecs(type, fill, codecs_json));
      }, py::arg("codecs_json"), py::arg("array_type"), py::arg("fill_value_json") = py::none(),
         "From a JSON array of codecs, the array type (Zarr name) and fill value (JSON or None).")
      .def_property_readonly("decoded_type", [](const zcast::Chain& chain) {
        return std::string(zcast::DataTypeName(chain.decoded_type()));
      })
      .def_property_readonly("encoded_type", [](const zcast::Chain& chain) {
        return std::string(zcast::DataTypeName(chain.encoded_type()));
      })
      .def_property_readonly("encoded_fill_value_json", &zcast::Chain::encoded_fill_value_json)
      .def_property_readonly("steps", &zcast::Chain::steps)
      .def_property_readonly("first_unowned_index", &zcast::Chain::first_unowned_index)
      .def_property_readonly("first_unowned_name", &zcast::Chain::first_unowned_name)
      .def_property_readonly("remaining_codecs_json", &zcast::Chain::remaining_codecs_json)
      .def("encode", [](const zcast::Chain& chain, const py::object& src, const py::object& dst) {
        RunCast(chain, &zcast::Chain::Encode, chain.decoded_type(), chain.encoded_type(), src,
                dst);
      }, py::arg("src"), py::arg("dst"), "Array type -> encoded type; raises CastError.")
      .def("decode", [](const zcast::Chain& chain, const py::object& src, const py::object& dst) {
        RunCast(chain, &zcast::Chain::Decode, chain.encoded_type(), chain.decoded_type(), src,
                dst);
      }, py::arg("src"), py::arg("dst"), "Encoded type -> array type; raises CastError.");
}
