// Writes the fuzzing seeds: valid files made by ember's own writers (and, for
// the data sets ember only reads, by the formats' definitions), one folder per
// harness under the folder given as argument. Seeds start libFuzzer from inputs
// that reach deep into each loader, and every CI run replays them.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/kernels/common/benchmark_cache.h>
#include <ember/kernels/common/benchmark_cache_file.h>

#include "fuzz_model.h"

#if EMBER_SEEDS_WITH_GZIP
#include <zlib.h>
#endif
#if EMBER_SEEDS_WITH_DISTRIBUTED
#include <ember/distributed/store_protocol.h>
#endif

namespace fs = std::filesystem;
using namespace ember;
using Bytes = std::vector<uint8_t>;

namespace {

void write(const fs::path& path, const Bytes& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw Error("make_fuzz_seeds: cannot write " + path.string());
}

Bytes read(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void put_be32(Bytes& b, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) b.push_back(uint8_t(v >> shift));
}

#if EMBER_SEEDS_WITH_GZIP
// gzip of `raw` (zlib's deflate with a gzip wrapper: windowBits 16 + 15).
Bytes gzip(const Bytes& raw) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("make_fuzz_seeds: deflateInit2 failed");
  Bytes out(deflateBound(&z, static_cast<uLong>(raw.size())));
  z.next_in = const_cast<Bytef*>(raw.data());
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw Error("make_fuzz_seeds: deflate failed");
  return out;
}
#endif

void safetensors_seeds(const fs::path& dir, const fuzz::Trainee& t) {
  save(*t.model, (dir / "model.safetensors").string());
  OrderedDict<std::string, Tensor> mixed;
  mixed.insert("f64", arange(6, kDouble).reshape({2, 3}));
  mixed.insert("i64", tensor({int64_t{-3}, int64_t{1} << 40}));
  mixed.insert("bool", tensor({true, false, true}));
  mixed.insert("scalar", tensor(2.5f).reshape({}));
  mixed.insert("empty", empty({0, 4}, kFloat));
  save_safetensors((dir / "dtypes.safetensors").string(), mixed, {{"format", "pt"}});
}

void json_seeds(const fs::path& dir, const fs::path& safetensors_dir) {
  // Each safetensors file's header: 8 bytes of length, then the JSON.
  int n = 0;
  for (const char* name : {"model.safetensors", "dtypes.safetensors"}) {
    const Bytes file = read(safetensors_dir / name);
    uint64_t len = 0;
    for (int i = 0; i < 8; ++i) len |= uint64_t(file.at(size_t(i))) << (8 * i);
    write(dir / ("header" + std::to_string(n++) + ".json"),
          Bytes(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(len)));
  }
  const std::string texts[] = {
      R"({"a":[1,-2.5e-3,true,false,null],"b":{"c":"\u00e9\ud83d\ude00\n\"\\"}})",
      R"([[[[]]],{},"",0,18446744073709551615])", R"("tab\tslash\/")"};
  for (const std::string& s : texts) write(dir / ("text" + std::to_string(n++) + ".json"), Bytes(s.begin(), s.end()));
}

struct IdxFiles {
  Bytes images, labels;
};

IdxFiles idx_files(uint32_t count, uint32_t rows, uint32_t cols) {
  IdxFiles f;
  put_be32(f.images, 2051), put_be32(f.images, count), put_be32(f.images, rows);
  put_be32(f.images, cols);
  for (uint32_t i = 0; i < count * rows * cols; ++i) f.images.push_back(uint8_t(i * 37));
  put_be32(f.labels, 2049), put_be32(f.labels, count);
  for (uint32_t i = 0; i < count; ++i) f.labels.push_back(uint8_t(i % 10));
  return f;
}

// idx_fuzz's layout: the images file's length (4 bytes, little-endian), images, labels.
Bytes idx_input(const IdxFiles& f) {
  Bytes out;
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(f.images.size() >> (8 * i)));
  out.insert(out.end(), f.images.begin(), f.images.end());
  out.insert(out.end(), f.labels.begin(), f.labels.end());
  return out;
}

void idx_seeds(const fs::path& dir) {
  write(dir / "plain-3x28x28", idx_input(idx_files(3, 28, 28)));
  write(dir / "plain-2x4x5", idx_input(idx_files(2, 4, 5)));
#if EMBER_SEEDS_WITH_GZIP
  const IdxFiles plain = idx_files(3, 28, 28);
  write(dir / "gzip-3x28x28", idx_input({gzip(plain.images), gzip(plain.labels)}));
#endif
}

void cifar_seeds(const fs::path& dir) {
  Bytes two;  // records: a label < 10, then 3x32x32 pixels
  for (int r = 0; r < 2; ++r) {
    two.push_back(uint8_t(r * 7));
    for (int i = 0; i < 3 * 32 * 32; ++i) two.push_back(uint8_t(i + r));
  }
  write(dir / "two-records.bin", two);
}

// The conv cpu_cache_fuzz runs, searched in benchmark mode, then the cache saved.
void cpu_cache_seeds(const fs::path& dir) {
  backends::cpu::clear_benchmark_cache();
  backends::cpu::set_benchmark(true);
  const Tensor x = ones({2, 3, 8, 8}).requires_grad_(true);
  const Tensor w = ones({4, 3, 3, 3}).requires_grad_(true);
  conv2d(x, w, {}, 1, 1).sum().backward();
  backends::cpu::set_benchmark(false);
  backends::cpu::save_benchmark_cache((dir / "conv.cache").string());
}

// A cuDNN cache file for this build's machine tag ("no-cuda" without a
// device), with an entry per pass: made by the file writer, since finding
// needs a GPU.
void cudnn_cache_seeds(const fs::path& dir) {
  bench::CacheFile file;
  file.backend = "cudnn_conv";
  file.machine_tag = bench::cudnn_conv_caches().machine_tag();
  file.key_format = 1;
  const std::string key = "n2c3h8w8k4r3s3p1,1s1,1d1,1g1-float32";  // one word
  file.entries = {{"forward", key, {{1, 0, 4096, 0.25}, {0, 1, 0, 0.5}}},
                  {"backward_data", key, {{0, 0, 0, 0.75}}},
                  {"backward_weight", key, {{3, 2, 1024, 1.5}, {1, 0, 0, 2.0}}}};
  bench::write_cache_file_atomically((dir / "cudnn.cache").string(), file);
}

#if EMBER_SEEDS_WITH_DISTRIBUTED
// TCPStore streams (tcp_store_fuzz's layout: the bytes of one connection, the
// first byte also saying where the harness cuts them): a session of every
// request, the counter's paths, and every reply.
void tcp_store_seeds(const fs::path& dir) {
  namespace st = distributed::store;
  auto req = [](st::Op op, std::vector<std::string> keys, int64_t number = 0, std::string value = "") {
    st::Request r;
    r.op = op;
    r.keys = std::move(keys);
    r.number = number;
    r.value.assign(value.begin(), value.end());
    return st::encode(r);
  };
  auto put = [&](const char* name, const std::string& s) { write(dir / name, Bytes(s.begin(), s.end())); };
  const std::string binary("k\0\xff", 3);
  put("session", req(st::Op::kHello, {}) + req(st::Op::kSet, {binary}, 0, std::string("v\0\0w", 4)) +
                     req(st::Op::kGet, {binary}, 100) + req(st::Op::kWait, {binary, "later"}, 5) +
                     req(st::Op::kSet, {"later"}, 0, "x") + req(st::Op::kCheck, {binary, "none"}) +
                     req(st::Op::kDelete, {binary}) + req(st::Op::kNumKeys, {}));
  put("counter", req(st::Op::kHello, {}) + req(st::Op::kAdd, {"n"}, 12) +
                     req(st::Op::kAdd, {"n"}, INT64_MAX) + req(st::Op::kSet, {"t"}, 0, "1x") +
                     req(st::Op::kAdd, {"t"}, 1) + req(st::Op::kGet, {"n"}, 0));
  std::string replies;
  for (st::Status s : {st::Status::kOk, st::Status::kValue, st::Status::kInt, st::Status::kBool,
                       st::Status::kTimeout, st::Status::kError}) {
    st::Reply r;
    r.status = s;
    r.value = {'a', '\0'};
    r.number = 1;
    r.keys = {"missing"};
    r.message = "TCPStore add: not an integer";
    replies += st::encode(r);
  }
  put("replies", replies);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_fuzz_seeds OUT_DIR\n";
    return 2;
  }
  const fs::path out = argv[1];
  for (const char* h : {"safetensors", "checkpoint", "json", "idx", "cifar", "cpu_cache", "cudnn_cache"})
    fs::create_directories(out / h);
  fuzz::Trainee t = fuzz::make_trainee();
  for (int i = 0; i < 3; ++i) fuzz::train_step(t);
  safetensors_seeds(out / "safetensors", t);
  save_checkpoint((out / "checkpoint" / "train.ckpt").string(), fuzz::checkpoint_of(t));
  json_seeds(out / "json", out / "safetensors");
  idx_seeds(out / "idx");
  cifar_seeds(out / "cifar");
  cpu_cache_seeds(out / "cpu_cache");
  cudnn_cache_seeds(out / "cudnn_cache");
#if EMBER_SEEDS_WITH_DISTRIBUTED
  fs::create_directories(out / "tcp_store");
  tcp_store_seeds(out / "tcp_store");
#endif
  std::cout << "make_fuzz_seeds: seeds written under " << out.string() << "\n";
  return 0;
}
