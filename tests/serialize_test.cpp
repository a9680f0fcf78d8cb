// Checkpoints (nn/serialize): safetensors save/load bit-exact, a golden file
// written byte by byte, every malformed-file case with its message, atomic
// replacement when a write fails midway, training checkpoints and RNG state.
#include "test_helpers.h"

#include <ember/nn/modules/linear.h>
#include <ember/nn/optim/adam.h>
#include <ember/core/atomic_file.h>
#include <ember/nn/serialize/checkpoint.h>
#include <ember/nn/serialize/json.h>
#include <ember/nn/serialize/module_io.h>
#include <ember/nn/serialize/safetensors.h>
#include <ember/nn/serialize/tensor_io.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

using namespace ember;
using namespace std::string_literals;
namespace fs = std::filesystem;

namespace {


void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string le64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}

// A safetensors file: the length of header, header, then data.
std::string st_bytes(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || !(a.sizes() == b.sizes())) return false;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.nbytes() == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

Tensor floats(std::vector<float> v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kFloat);
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(float));
  return t;
}

// A BatchNorm-like block: parameters and buffers, int64 buffer included.
struct BlockImpl : nn::Module {
  BlockImpl() : nn::Module("Block") {
    weight = register_parameter("weight", randn({2, 3}));
    bias = register_parameter("bias", randn({2}));
    running_mean = register_buffer("running_mean", randn({2}));
    num_batches_tracked = register_buffer("num_batches_tracked", tensor(int64_t(0), kLong));
  }
  Tensor weight, bias, running_mean, num_batches_tracked;
};

// features.0 = Block, head = Block with a float64 weight of another shape.
struct NetImpl : nn::Module {
  explicit NetImpl(int64_t head_out = 4) : nn::Module("Net") {
    features = std::make_shared<nn::Module>("Sequential");
    block = features->register_module("0", std::make_shared<BlockImpl>());
    register_module("features", features);
    head_weight = register_parameter("head_weight", randn({head_out, 2}, kDouble));
  }
  std::shared_ptr<nn::Module> features;
  std::shared_ptr<BlockImpl> block;
  Tensor head_weight;
};
using Net = nn::ModuleHolder<NetImpl>;

}  // namespace

TEST_CASE("safetensors round-trips every dtype bit-exactly, incl. 0-dim and empty tensors",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  OrderedDict<std::string, Tensor> tensors;
  tensors.insert("f32", floats({1.5f, -0.0f, nan, inf, -inf, 1e-45f, 3.4e38f}));
  tensors.insert("f64", tensor({{0.1, -2.5e300}, {4.9e-324, 1.0 / 3}}, kDouble));
  tensors.insert("i64", tensor({std::numeric_limits<int64_t>::min(), int64_t(-1), int64_t(0),
                                std::numeric_limits<int64_t>::max()},
                               kLong));
  tensors.insert("bool", tensor({true, false, true}, kBool));
  const Tensor small = tensor({-128.0, -1.0, 0.0, 127.0, 255.0}, kDouble);
  tensors.insert("u8", small.to(kByte));
  tensors.insert("i8", small.to(kChar));
  tensors.insert("i16", (small * 250).to(kShort));
  tensors.insert("i32", (small * 1e7).to(kInt));
  const Tensor special = floats({1.5f, -0.0f, nan, inf, 65504.0f, 6e-8f, 1e-40f});
  tensors.insert("f16", special.to(kHalf));
  tensors.insert("bf16", special.to(kBFloat16));
  tensors.insert("scalar", tensor(2.75, kDouble));
  tensors.insert("empty", empty({0, 3}, kFloat));
  tensors.insert("layer.0/weight", tensor({{1.0, 2.0}, {3.0, 4.0}}, kFloat));
  const std::string path = dir.file("t.safetensors");
  save_safetensors(path, tensors, {{"format", "pt"}, {"note", "ünïcode \"quoted\"\n"}});

  const SafetensorsFile loaded = load_safetensors(path);
  REQUIRE(loaded.tensors.keys() == tensors.keys());  // header order kept
  for (const auto& item : tensors) {
    INFO(item.key());
    REQUIRE(same_bytes(loaded.tensors[item.key()], item.value()));
  }
  REQUIRE(loaded.tensors["scalar"].dim() == 0);
  REQUIRE(loaded.tensors["empty"].sizes() == IntArrayRef{0, 3});
  REQUIRE(loaded.metadata ==
          std::map<std::string, std::string>{{"format", "pt"}, {"note", "ünïcode \"quoted\"\n"}});
}

TEST_CASE("save_safetensors writes non-contiguous and requires-grad tensors by value",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const Tensor base = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, kDouble);
  OrderedDict<std::string, Tensor> tensors;
  tensors.insert("transposed", base.t());
  tensors.insert("sliced", base.slice(1, 0, 3, 2));
  tensors.insert("expanded", tensor({7.0}, kDouble).expand({2, 2}));
  tensors.insert("param", tensor({0.5, 0.25}, TensorOptions(kDouble).requires_grad(true)));
  save_safetensors(dir.file("v.safetensors"), tensors);
  const SafetensorsFile loaded = load_safetensors(dir.file("v.safetensors"));
  ember_test::require_values(loaded.tensors["transposed"], {1, 4, 2, 5, 3, 6});
  ember_test::require_values(loaded.tensors["sliced"], {1, 3, 4, 6});
  ember_test::require_values(loaded.tensors["expanded"], {7, 7, 7, 7});
  ember_test::require_values(loaded.tensors["param"], {0.5, 0.25});
  REQUIRE_FALSE(loaded.tensors["param"].requires_grad());
}

TEST_CASE("save_safetensors lays out the header and data as the format says", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  OrderedDict<std::string, Tensor> tensors;
  tensors.insert("m", tensor({true, false, true}, kBool));
  tensors.insert("w", floats({1.5f, -2.0f}));
  tensors.insert("s", tensor(int64_t(-7), kLong));
  save_safetensors(dir.file("x.safetensors"), tensors);
  const std::string bytes = read_bytes(dir.file("x.safetensors"));
  // Data in order of falling element size (each tensor aligned): s, w, m.
  const std::string header = R"({"m":{"dtype":"BOOL","shape":[3],"data_offsets":[16,19]},)"
                             R"("w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                             R"("s":{"dtype":"I64","shape":[],"data_offsets":[0,8]}})";
  const std::string padded = header + std::string((8 - header.size() % 8) % 8, ' ');
  const std::string data =
      "\xf9\xff\xff\xff\xff\xff\xff\xff"s  // -7
      "\x00\x00\xc0\x3f\x00\x00\x00\xc0"s  // 1.5f, -2.0f
      "\x01\x00\x01"s;
  REQUIRE(bytes == st_bytes(padded, data));
}

TEST_CASE("a golden safetensors file written byte by byte loads with the right values",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  // As PyTorch's safetensors writes it: __metadata__ first, data ordered by
  // alignment, not by header order. 386 header bytes + 6 spaces = 392 = 0x188.
  const std::string golden =
      "\x88\x01\x00\x00\x00\x00\x00\x00"s +
      R"({"__metadata__":{"format":"pt"},)"
      R"("weight":{"dtype":"F32","shape":[2,2],"data_offsets":[16,32]},)"
      R"("steps":{"dtype":"I64","shape":[],"data_offsets":[0,8]},)"
      R"("mask":{"dtype":"BOOL","shape":[3],"data_offsets":[40,43]},)"
      R"("scale":{"dtype":"F64","shape":[1],"data_offsets":[8,16]},)"
      R"("empty":{"dtype":"F32","shape":[0,4],"data_offsets":[32,32]},)"
      R"("bias":{"dtype":"F32","shape":[2],"data_offsets":[32,40]}})"
      "      "s +
      "\xf9\xff\xff\xff\xff\xff\xff\xff"s                                  // steps: -7
      "\x00\x00\x00\x00\x00\x00\xc0\xbf"s                                  // scale: -0.125
      "\x00\x00\xc0\x3f\x00\x00\x00\xc0\x00\x00\x80\x3e\x00\x00\x40\x40"s  // weight: 1.5 -2 .25 3
      "\x00\x00\x00\x3f\x00\x00\x80\xbf"s                                  // bias: 0.5 -1
      "\x01\x00\x01"s;                                                     // mask
  REQUIRE(golden.size() == 8 + 392 + 43);
  write_bytes(dir.file("golden.safetensors"), golden);

  const SafetensorsFile f = load_safetensors(dir.file("golden.safetensors"));
  REQUIRE(f.tensors.keys() ==
          std::vector<std::string>{"weight", "steps", "mask", "scale", "empty", "bias"});
  REQUIRE(f.metadata == std::map<std::string, std::string>{{"format", "pt"}});
  REQUIRE(f.tensors["weight"].scalar_type() == kFloat);
  REQUIRE(f.tensors["weight"].sizes() == IntArrayRef{2, 2});
  ember_test::require_values(f.tensors["weight"], {1.5, -2.0, 0.25, 3.0});
  REQUIRE(f.tensors["steps"].scalar_type() == kLong);
  REQUIRE(f.tensors["steps"].dim() == 0);
  REQUIRE(f.tensors["steps"].item<int64_t>() == -7);
  REQUIRE(f.tensors["mask"].scalar_type() == kBool);
  ember_test::require_values(f.tensors["mask"], {1, 0, 1});
  REQUIRE(f.tensors["scale"].scalar_type() == kDouble);
  ember_test::require_values(f.tensors["scale"], {-0.125});
  REQUIRE(f.tensors["empty"].sizes() == IntArrayRef{0, 4});
  ember_test::require_values(f.tensors["bias"], {0.5, -1.0});
}

TEST_CASE("a golden safetensors file of the 16-bit floats and narrow integers loads bit for bit",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  // Little-endian, as the format says: bf16 1.5 = 0x3fc0 and -2 = 0xc000;
  // f16 1.5 = 0x3e00 and 65504 = 0x7bff; u8 200; i8 -3; i16 -2; i32 70000 =
  // 0x11170. Data in order of falling element size, as PyTorch writes it;
  // 326 header bytes + 2 spaces = 328 = 0x148.
  const std::string header =
      R"({"bf":{"dtype":"BF16","shape":[2],"data_offsets":[4,8]},)"
      R"("h":{"dtype":"F16","shape":[2],"data_offsets":[8,12]},)"
      R"("i":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},)"
      R"("s":{"dtype":"I16","shape":[1],"data_offsets":[12,14]},)"
      R"("b":{"dtype":"U8","shape":[1],"data_offsets":[14,15]},)"
      R"("c":{"dtype":"I8","shape":[1],"data_offsets":[15,16]}}  )";
  REQUIRE(header.size() == 0x148);
  const std::string golden = "\x48\x01\x00\x00\x00\x00\x00\x00"s + header +
                             "\x70\x11\x01\x00"s + "\xc0\x3f\x00\xc0"s + "\x00\x3e\xff\x7b"s +
                             "\xfe\xff"s + "\xc8"s + "\xfd"s;
  write_bytes(dir.file("golden16.safetensors"), golden);
  const SafetensorsFile f = load_safetensors(dir.file("golden16.safetensors"));
  REQUIRE(f.tensors["bf"].scalar_type() == kBFloat16);
  ember_test::require_values(f.tensors["bf"].to(kDouble), {1.5, -2.0});
  REQUIRE(f.tensors["h"].scalar_type() == kHalf);
  ember_test::require_values(f.tensors["h"].to(kDouble), {1.5, 65504.0});
  REQUIRE(f.tensors["i"].scalar_type() == kInt);
  REQUIRE(f.tensors["i"].item<int64_t>() == 70000);
  REQUIRE(f.tensors["s"].scalar_type() == kShort);
  REQUIRE(f.tensors["s"].item<int64_t>() == -2);
  REQUIRE(f.tensors["b"].scalar_type() == kByte);
  REQUIRE(f.tensors["b"].item<int64_t>() == 200);
  REQUIRE(f.tensors["c"].scalar_type() == kChar);
  REQUIRE(f.tensors["c"].item<int64_t>() == -3);
  // Saved again, the bytes are the golden file's data in header order.
  save_safetensors(dir.file("again.safetensors"), f.tensors);
  const std::string again = read_bytes(dir.file("again.safetensors"));
  REQUIRE(again.substr(again.size() - 16) == golden.substr(golden.size() - 16));
}

TEST_CASE("load_safetensors rejects each malformed file with an Error naming file and problem",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("bad.safetensors");
  const std::string f32x2 = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string eight(8, '\0');
  struct Case {
    const char* what;
    std::string bytes;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"empty file", "", "file is too short (0 bytes) to hold the 8-byte header length"},
      {"7 bytes", std::string(7, '\0'), "file is too short (7 bytes)"},
      {"header longer than the file", le64(100) + "{}", "header length 100 exceeds the 2 bytes"},
      {"absurd header length", le64(uint64_t(1) << 62) + "{}", "is absurd"},
      {"not a safetensors file (zip magic)", "PK\x03\x04\x14\x00\x00\x00\x08\x00"s, "is absurd"},
      {"truncated JSON", st_bytes(R"({"a":{"dtype":)", ""), "invalid JSON header: "},
      {"trailing comma", st_bytes(R"({"a":1,})", ""), "invalid JSON header: expected a string key"},
      {"garbage after JSON", st_bytes(R"({} x)", ""), "unexpected data after the JSON value"},
      {"invalid UTF-8 name", st_bytes("{\"\xff\":1}", ""), "invalid JSON header: invalid UTF-8"},
      {"header is an array", st_bytes("[]", ""), "the header is a JSON array, not an object"},
      {"entry not an object", st_bytes(R"({"a":3})", ""), "tensor 'a': expected an object"},
      {"missing field", st_bytes(R"({"a":{"dtype":"F32","shape":[0]}})", ""),
       "tensor 'a': missing field 'data_offsets'"},
      {"unknown field",
       st_bytes(R"({"a":{"dtype":"F32","shape":[],"data_offsets":[0,4],"x":1}})",
                eight.substr(0, 4)),
       "tensor 'a': unknown field 'x'"},
      {"unsupported dtype",
       st_bytes(R"({"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}})", eight.substr(0, 2)),
       "tensor 'a': unsupported dtype 'F8_E4M3'"},
      {"unknown dtype",
       st_bytes(R"({"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,4]}})", eight.substr(0, 4)),
       "unsupported dtype 'Q7'"},
      {"negative shape",
       st_bytes(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight),
       "tensor 'a': shape entries must be non-negative integers"},
      {"fractional shape",
       st_bytes(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", eight),
       "shape entries must be non-negative integers"},
      {"shape overflow",
       st_bytes(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
                eight),
       "tensor 'a': shape [4294967296, 4294967296] overflows int64"},
      // A zero size must not absorb the overflow: the strides would still need 2^80 and 2^64.
      {"zero size and huge others",
       st_bytes(R"({"a":{"dtype":"F32","shape":[0,1099511627776,1099511627776],)"
                R"("data_offsets":[0,0]}})",
                ""),
       "tensor 'a': shape [0, 1099511627776, 1099511627776] overflows int64"},
      {"zero size first, then 2^62 and 4",
       st_bytes(R"({"a":{"dtype":"F32","shape":[0,4611686018427387904,4],"data_offsets":[0,0]}})",
                ""),
       "tensor 'a': shape [0, 4611686018427387904, 4] overflows int64"},
      {"byte count overflow",  // 2^61 elements fit int64, their 2^64 bytes do not
       st_bytes(R"({"a":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,8]}})",
                eight),
       "tensor 'a': the byte count of shape [2305843009213693952] overflows"},
      {"shape and size disagree",
       st_bytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight),
       "tensor 'a': data_offsets [0, 8] hold 8 bytes but dtype F32 and shape [3] need 12"},
      {"offsets not a pair",
       st_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", eight),
       "data_offsets must be two non-negative integers"},
      {"reversed offsets",
       st_bytes(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", eight),
       "data_offsets [8, 0] are reversed"},
      {"offsets past the end (truncated data)", st_bytes(f32x2, eight.substr(0, 5)),
       "tensor 'a': data_offsets [0, 8] run past the end of the data buffer (5 bytes)"},
      {"overlapping ranges",
       st_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                eight + eight),
       "data ranges of 'a' [0, 8) and 'b' [4, 12) overlap"},
      {"same range twice",
       st_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                R"("b":{"dtype":"I64","shape":[],"data_offsets":[0,8]}})",
                eight),
       "overlap"},
      {"gap between ranges",
       st_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", eight + eight),
       "bytes [0, 4) of the data buffer belong to no tensor"},
      {"extra data after the last range", st_bytes(f32x2, eight + "xy"),
       "bytes [8, 10) of the data buffer belong to no tensor"},
      {"duplicate names",
       st_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                eight),
       "invalid JSON header: duplicate key \"a\""},
      {"metadata not strings", st_bytes(R"({"__metadata__":{"epoch":3}})", ""),
       "metadata 'epoch' must be a string, not a number"},
      {"bool byte other than 0/1",
       st_bytes(R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", "\x01\x02"s),
       "tensor 'm': BOOL element 1 has the byte value 2 (must be 0 or 1)"},
      {"nesting bomb", st_bytes(std::string(10000, '['), ""), "nesting deeper than 64"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    write_bytes(path, c.bytes);
    REQUIRE_THROWS_AS(load_safetensors(path), Error);
    REQUIRE_THROWS_WITH(
        load_safetensors(path),
        Catch::Contains("load_safetensors: '" + path + "': ") && Catch::Contains(c.message));
  }
}

TEST_CASE("load_safetensors reads an empty tensor whose sizes fit, as PyTorch", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("empty.safetensors");
  write_bytes(path, st_bytes(R"({"e":{"dtype":"I64","shape":[0,1099511627776,4],)"
                             R"("data_offsets":[0,0]}})",
                             ""));
  const Tensor e = load_safetensors(path).tensors["e"];
  REQUIRE(e.numel() == 0);
  REQUIRE(e.sizes() == IntArrayRef({0, int64_t(1) << 40, 4}));
  REQUIRE(e.strides() == IntArrayRef({int64_t(1) << 42, 4, 1}));
}

TEST_CASE("load_safetensors answers every truncation and byte corruption with data or an Error",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  OrderedDict<std::string, Tensor> tensors;
  tensors.insert("w", tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble));
  tensors.insert("i", tensor({int64_t(5)}, kLong));
  tensors.insert("m", tensor({true, false}, kBool));
  save_safetensors(dir.file("ok.safetensors"), tensors, {{"k", "v"}});
  const std::string good = read_bytes(dir.file("ok.safetensors"));
  int count = 0;
  const auto load_or_error = [&](const std::string& bytes) {
    // A new file each time: rewriting one in place makes ext4 flush it, 1000 times slower.
    const std::string path = dir.file("mutant" + std::to_string(count++));
    write_bytes(path, bytes);
    try {
      load_safetensors(path);
    } catch (const Error&) {
    }  // anything else (or a crash, or an ASan report) fails the test
    fs::remove(path);
  };
  for (size_t n = 0; n < good.size(); ++n) load_or_error(good.substr(0, n));
  for (size_t i = 0; i < good.size(); ++i)
    for (const char byte : {'\0', '\x01', '"', '9', ',', '\xff'}) {
      std::string mutant = good;
      mutant[i] = byte;
      load_or_error(mutant);
    }
}

TEST_CASE("load_safetensors names a missing file and a directory", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  REQUIRE_THROWS_WITH(load_safetensors(dir.file("nope.safetensors")),
                      Catch::Contains("nope.safetensors': cannot open: No such file or directory"));
  REQUIRE_THROWS_WITH(load_safetensors(dir.file("")), Catch::Contains("not a regular file"));
}

TEST_CASE("save_safetensors rejects reserved, undefined and non-UTF-8 entries", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("s.safetensors");
  OrderedDict<std::string, Tensor> reserved;
  reserved.insert("__metadata__", floats({1}));
  REQUIRE_THROWS_WITH(save_safetensors(path, reserved),
                      Catch::Contains("the name '__metadata__' is reserved for metadata"));
  OrderedDict<std::string, Tensor> undefined;
  undefined.insert("x", Tensor());
  REQUIRE_THROWS_WITH(save_safetensors(path, undefined),
                      Catch::Contains("tensor 'x' is undefined"));
  OrderedDict<std::string, Tensor> bad_name;
  bad_name.insert("bad\xff", floats({1}));
  REQUIRE_THROWS_WITH(save_safetensors(path, bad_name), Catch::Contains("is not valid UTF-8"));
  REQUIRE_THROWS_WITH(save_safetensors(path, TensorDict(), {{"k", "\xc0\x80"}}),
                      Catch::Contains("metadata entry 'k' is not valid UTF-8"));
  REQUIRE(dir.entry_count() == 0);
}

TEST_CASE("the JSON reader decodes escapes and rejects what RFC 8259 does not allow",
          "[serialize]") {
  using serialize::parse_json;
  const auto v = parse_json(
      R"( {"k": ["a\"\\\/\b\f\n\r\t", "\u00e9\ud83d\ude00", -1.5e3, 0, true, false, null]} )");
  const auto& a = v.find("k")->array;
  REQUIRE(a[0].text == "a\"\\/\b\f\n\r\t");
  REQUIRE(a[1].text == "\xc3\xa9\xf0\x9f\x98\x80");
  REQUIRE(a[2].text == "-1.5e3");
  REQUIRE_FALSE(a[2].as_uint64().has_value());
  REQUIRE(a[3].as_uint64() == 0u);
  REQUIRE(a[4].boolean);
  REQUIRE(a[6].kind == serialize::JsonValue::Kind::Null);
  REQUIRE(parse_json("18446744073709551615").as_uint64() == UINT64_MAX);
  REQUIRE_FALSE(parse_json("18446744073709551616").as_uint64().has_value());
  REQUIRE(serialize::json_quote("a\"\x01") == "\"a\\\"\\u0001\"");

  REQUIRE_THROWS_WITH(parse_json("01"), Catch::Contains("number with a leading zero at byte 1"));
  REQUIRE_THROWS_WITH(parse_json("\"\\ud800\""),
                      Catch::Contains("high surrogate without its low half"));
  REQUIRE_THROWS_WITH(parse_json("\"\\udc00\""), Catch::Contains("lone low surrogate"));
  REQUIRE_THROWS_WITH(parse_json("\"a\nb\""), Catch::Contains("control character in string"));
  REQUIRE_THROWS_WITH(parse_json("\"\xe0\x80\x80\""),
                      Catch::Contains("invalid UTF-8"));  // overlong
  REQUIRE_THROWS_WITH(parse_json("\"\xed\xa0\x80\""),
                      Catch::Contains("invalid UTF-8"));  // surrogate
  REQUIRE_THROWS_WITH(parse_json("\"\xe2\x82"), Catch::Contains("truncated UTF-8 sequence"));
  REQUIRE_THROWS_WITH(parse_json("[1,]"), Catch::Contains("invalid value"));
  REQUIRE_THROWS_WITH(parse_json("NaN"), Catch::Contains("invalid value"));
  REQUIRE_THROWS_WITH(parse_json("tru"), Catch::Contains("invalid literal"));
  REQUIRE_THROWS_WITH(parse_json("\"abc"), Catch::Contains("unterminated string"));
  REQUIRE_THROWS_WITH(parse_json(""), Catch::Contains("unexpected end of input"));
  REQUIRE_THROWS_WITH(parse_json("1."), Catch::Contains("expected digits after '.'"));
}

// ---- atomic writes ----

TEST_CASE("write_file_atomically replaces the file and leaves no temporary behind", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("f.bin");
  write_file_atomically(path, "old");
  write_file_atomically(path, "new contents");
  REQUIRE(read_bytes(path) == "new contents");
  REQUIRE(dir.entry_count() == 1);
}

TEST_CASE("an atomically written file gets the umask's permissions, not a temp file's 0600",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const mode_t previous = ::umask(022);
  write_file_atomically(dir.file("f.bin"), "x");
  ::umask(previous);
  REQUIRE((fs::status(dir.file("f.bin")).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
           fs::perms::others_read));
}

TEST_CASE("an atomic write into a missing directory names the path and errno text", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("missing/f.bin");
  REQUIRE_THROWS_WITH(write_file_atomically(path, "x"),
                      Catch::Contains("cannot write '" + path + "'") &&
                          Catch::Contains("No such file or directory"));
}

TEST_CASE("a checkpoint save that fails midway leaves the previous checkpoint intact",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("ckpt.safetensors");
  Checkpoint previous;
  previous.section("model").insert("w", tensor({1.0, 2.0}, kDouble));
  previous.metadata["epoch"] = "1";
  save_checkpoint(path, previous);
  const std::string previous_bytes = read_bytes(path);

  Checkpoint next;
  next.section("model").insert("w", tensor({3.0, 4.0, 5.0}, kDouble));
  next.metadata["epoch"] = "2";
  struct SimulatedCrash {};
  for (const std::string stage : {"write", "rename"}) {
    INFO("crash at " << stage);
    int writes = 0;
    // Crash after the length prefix and header are out, before the data (or just before rename).
    ember::testing::set_atomic_write_hook([&](const char* s) {
      if (stage == s && (stage == "rename" || ++writes == 2)) throw SimulatedCrash{};
    });
    REQUIRE_THROWS_AS(save_checkpoint(path, next), SimulatedCrash);
    ember::testing::set_atomic_write_hook(nullptr);
    REQUIRE(read_bytes(path) == previous_bytes);
    REQUIRE(dir.entry_count() == 1);  // the temporary file is gone
    const Checkpoint loaded = load_checkpoint(path);
    REQUIRE(loaded.metadata.at("epoch") == "1");
    ember_test::require_values(loaded.section("model")["w"], {1.0, 2.0});
  }
  save_checkpoint(path, next);
  REQUIRE(load_checkpoint(path).metadata.at("epoch") == "2");
}

// ---- training checkpoints ----

TEST_CASE("a training checkpoint round-trips sections, names, values and metadata", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  Checkpoint c;
  c.section("model").insert("features.0.weight", tensor({{0.5f, -1.0f}, {2.0f, 3.0f}}));
  c.section("model").insert("features.1.num_batches_tracked", tensor(int64_t(12), kLong));
  c.section("optimizer").insert("state/0/exp_avg", tensor({0.125, 0.25}, kDouble));
  c.section("optimizer").insert("param_groups/0/lr", tensor(1e-3, kDouble));
  c.section("scheduler");  // empty sections survive
  c.section("rng") = rng_state();
  c.metadata = {{"epoch", "3"}, {"step", "2811"}, {"run", "baseline"}};
  const std::string path = dir.file("c.safetensors");
  save_checkpoint(path, c);

  const Checkpoint loaded = load_checkpoint(path);
  REQUIRE(loaded.sections.keys() ==
          std::vector<std::string>{"model", "optimizer", "scheduler", "rng"});
  REQUIRE(loaded.metadata == c.metadata);
  for (const auto& section : c.sections) {
    const TensorDict& got = loaded.section(section.key());
    REQUIRE(got.keys() == section.value().keys());
    for (const auto& item : section.value()) {
      INFO(section.key() << "/" << item.key());
      REQUIRE(same_bytes(got[item.key()], item.value()));
    }
  }
  REQUIRE(loaded.section("scheduler").is_empty());
  // The file is plain safetensors: "<section>/<name>" tensors.
  const SafetensorsFile raw = load_safetensors(path);
  REQUIRE(raw.tensors.contains("optimizer/state/0/exp_avg"));
  REQUIRE(raw.metadata.at("ember.format") == "checkpoint/1");
  REQUIRE_THROWS_WITH(loaded.section("ema"), Catch::Contains("Checkpoint: no section 'ema'"));
}

TEST_CASE("checkpoint errors: reserved metadata, bad section names, foreign files", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("c.safetensors");
  Checkpoint reserved;
  reserved.metadata["ember.format"] = "x";
  REQUIRE_THROWS_WITH(
      save_checkpoint(path, reserved),
      Catch::Contains("metadata key 'ember.format' uses the reserved prefix 'ember.'"));
  Checkpoint slash;
  slash.section("a/b");
  REQUIRE_THROWS_WITH(save_checkpoint(path, slash),
                      Catch::Contains("section name 'a/b' must be non-empty and contain no '/'"));
  OrderedDict<std::string, Tensor> plain;
  plain.insert("w", floats({1}));
  save_safetensors(path, plain);
  REQUIRE_THROWS_WITH(load_checkpoint(path),
                      Catch::Contains("load_checkpoint: '" + path + "': not an ember checkpoint"));
  save_safetensors(path, plain, {{"ember.format", "checkpoint/1"}, {"ember.sections", "[\"m\"]"}});
  REQUIRE_THROWS_WITH(load_checkpoint(path),
                      Catch::Contains("tensor 'w' has no '<section>/' prefix"));
  save_safetensors(path, TensorDict(),
                   {{"ember.format", "checkpoint/9"}, {"ember.sections", "[]"}});
  REQUIRE_THROWS_WITH(load_checkpoint(path),
                      Catch::Contains("format 'checkpoint/9' is not supported"));
  save_safetensors(path, TensorDict(),
                   {{"ember.format", "checkpoint/1"}, {"ember.sections", "{}"}});
  REQUIRE_THROWS_WITH(load_checkpoint(path),
                      Catch::Contains("metadata 'ember.sections' is not a JSON array of strings"));
}

TEST_CASE("rng_state and set_rng_state replay the same random numbers", "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  manual_seed(1234);
  (void)rand({5});
  Checkpoint c;
  c.section("rng") = rng_state();
  save_checkpoint(dir.file("rng.safetensors"), c);
  const Tensor first = rand({7}, kDouble);

  manual_seed(99);
  set_rng_state(load_checkpoint(dir.file("rng.safetensors")).section("rng"));
  REQUIRE(same_bytes(rand({7}, kDouble), first));

  TensorDict bad("Tensor");
  bad.insert("cpu", floats({1, 2}));
  REQUIRE_THROWS_WITH(
      set_rng_state(bad),
      Catch::Contains("set_rng_state: 'cpu' must be an int64 tensor [2] (seed, offset)"));
  TensorDict unknown("Tensor");
  unknown.insert("tpu", tensor({int64_t(1), int64_t(2)}, kLong));
  REQUIRE_THROWS_WITH(set_rng_state(unknown), Catch::Contains("set_rng_state: no generator 'tpu'"));
}

// ---- module checkpoints ----

TEST_CASE("ember::save writes PyTorch's state_dict names and ember::load restores bit-exactly",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("net.safetensors");
  Net saved;
  saved->block->num_batches_tracked.fill_(17);
  save(saved, path);
  // Names and order of PyTorch's state_dict() for the same structure.
  const SafetensorsFile raw = load_safetensors(path);
  REQUIRE(raw.tensors.keys() ==
          std::vector<std::string>{"head_weight", "features.0.weight", "features.0.bias",
                                   "features.0.running_mean", "features.0.num_batches_tracked"});
  REQUIRE(raw.metadata.at("format") == "pt");

  Net restored;
  const Tensor weight_handle = restored->block->weight;  // an alias taken before loading
  const LoadReport report = load(restored, path);
  REQUIRE(report.ok());
  REQUIRE(same_bytes(weight_handle, saved->block->weight));
  REQUIRE(same_bytes(restored->block->bias, saved->block->bias));
  REQUIRE(same_bytes(restored->head_weight, saved->head_weight));
  REQUIRE(same_bytes(restored->block->running_mean, saved->block->running_mean));
  REQUIRE(restored->block->num_batches_tracked.item<int64_t>() == 17);
  REQUIRE(restored->block->weight.requires_grad());
  REQUIRE(restored->block->weight.is_leaf());
}

TEST_CASE("strict ember::load lists missing, unexpected and mismatched names and copies nothing",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("other.safetensors");
  OrderedDict<std::string, Tensor> file;
  file.insert("features.0.weight", zeros({2, 3}));
  file.insert("features.0.bias", zeros({3}));                   // shape differs
  file.insert("features.0.running_mean", zeros({2}, kDouble));  // dtype differs
  file.insert("features.0.num_batches_tracked", tensor(int64_t(5), kLong));
  file.insert("fc.weight", zeros({1}));  // unexpected
  save_safetensors(path, file);          // head_weight missing

  NetImpl net;
  const std::vector<double> before = ember_test::values(net.block->weight);
  REQUIRE_THROWS_WITH(
      load(net, path),
      Catch::Contains("load: '" + path + "' does not match the module's parameters and buffers") &&
          Catch::Contains("missing: head_weight") && Catch::Contains("unexpected: fc.weight") &&
          Catch::Contains("features.0.bias (float32 [3] given, float32 [2] in the module)") &&
          Catch::Contains(
              "features.0.running_mean (float64 [2] given, float32 [2] in the module)"));
  REQUIRE(ember_test::values(net.block->weight) == before);

  const LoadReport report = load(net, path, /*strict=*/false);
  REQUIRE(report.missing == std::vector<std::string>{"head_weight"});
  REQUIRE(report.unexpected == std::vector<std::string>{"fc.weight"});
  REQUIRE(report.shape_mismatched ==
          std::vector<std::string>{"features.0.bias", "features.0.running_mean"});
  ember_test::require_values(net.block->weight, {0, 0, 0, 0, 0, 0});  // what matched was copied
  REQUIRE(net.block->num_batches_tracked.item<int64_t>() == 5);
}

TEST_CASE("load_state_dict bumps the version of the tensors it fills", "[serialize]") {
  NetImpl net;
  const uint32_t version = net.head_weight._version();
  OrderedDict<std::string, Tensor> state = state_dict(NetImpl());
  REQUIRE(load_state_dict(net, state).ok());
  REQUIRE(net.head_weight._version() > version);
  REQUIRE(same_bytes(net.head_weight, state["head_weight"]));
}

TEST_CASE("training resumed from a checkpoint ends bit-identical to an uninterrupted run",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const std::string path = dir.file("resume.safetensors");
  const Tensor x = tensor({{0.5, -1.0, 2.0}, {1.5, 0.25, -0.75}});
  const Tensor y = tensor({{1.0, -1.0}, {0.5, 2.0}});
  // One step: random input noise, so the RNG state matters too.
  const auto train_step = [&](nn::Linear& model, optim::Adam& opt) {
    opt.zero_grad();
    const Tensor noise = randn({2, 3}) * 0.01;
    (model(x + noise) - y).square().mean().backward();
    opt.step();
  };
  const auto snapshot = [&](nn::Linear& model, optim::Adam& opt, int64_t step) {
    Checkpoint c;
    c.section("model") = state_dict(*model);
    c.section("optimizer") = opt.state_dict();
    c.section("rng") = rng_state();
    c.metadata["step"] = std::to_string(step);
    save_checkpoint(path, c);
  };

  manual_seed(7);
  nn::Linear model(3, 2);
  optim::Adam opt(model->parameters(), optim::AdamOptions(0.1));
  for (int64_t step = 1; step <= 3; ++step) train_step(model, opt);
  snapshot(model, opt, 3);
  for (int step = 4; step <= 6; ++step) train_step(model, opt);

  manual_seed(8);  // another initialisation and RNG position
  nn::Linear resumed(3, 2);
  optim::Adam resumed_opt(resumed->parameters(), optim::AdamOptions(0.1));
  const Checkpoint c = load_checkpoint(path);
  REQUIRE(c.metadata.at("step") == "3");
  REQUIRE(load_state_dict(*resumed, c.section("model")).ok());
  resumed_opt.load_state_dict(c.section("optimizer"));
  set_rng_state(c.section("rng"));
  for (int step = 4; step <= 6; ++step) train_step(resumed, resumed_opt);

  REQUIRE(same_bytes(resumed->weight, model->weight));
  REQUIRE(same_bytes(resumed->bias, model->bias));
}

TEST_CASE("save/load of a tensor, a tensor list and an optimizer, as libtorch's torch::save",
          "[serialize]") {
  ember_test::TempDir dir("serialize_test");
  const Tensor t = tensor({{1.5, -2.0}, {0.25, 8.0}}, kDouble).t();  // non-contiguous
  save(t, dir.file("t.safetensors"));
  Tensor back;
  load(back, dir.file("t.safetensors"));
  REQUIRE(back.scalar_type() == kDouble);
  REQUIRE(back.sizes() == IntArrayRef({2, 2}));
  REQUIRE(ember_test::values(back) == ember_test::values(t));

  save(std::vector<Tensor>{ones({2}), tensor({3, 4, 5}, kLong)}, dir.file("list.safetensors"));
  std::vector<Tensor> list;
  load(list, dir.file("list.safetensors"));
  REQUIRE(list.size() == 2);
  REQUIRE(ember_test::values(list[1]) == std::vector<double>{3, 4, 5});
  REQUIRE_THROWS_WITH(load(back, dir.file("list.safetensors")),
                      Catch::Contains("does not hold one tensor saved by save(tensor, path)"));

  // An Adam state saved after one step, loaded into a fresh Adam: the next steps agree.
  nn::Linear a(3, 2), b(3, 2);
  b->weight.detach().copy_(a->weight);
  b->bias.detach().copy_(a->bias);
  optim::Adam opt_a(a->parameters(), optim::AdamOptions(0.1));
  optim::Adam opt_b(b->parameters(), optim::AdamOptions(0.1));
  const Tensor x = arange(6, kFloat).reshape({2, 3});
  const auto step = [&](nn::Linear& m, optim::Adam& opt) {
    opt.zero_grad();
    m->forward(x).pow(2).sum().backward();
    opt.step();
  };
  step(a, opt_a);
  save(opt_a, dir.file("adam.safetensors"));
  b->weight.detach().copy_(a->weight);
  b->bias.detach().copy_(a->bias);
  load(opt_b, dir.file("adam.safetensors"));
  step(a, opt_a);
  step(b, opt_b);
  REQUIRE(ember_test::values(b->weight) == ember_test::values(a->weight));
}
