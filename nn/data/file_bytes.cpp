#include "ember/nn/data/file_bytes.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "ember/core/error.h"

#ifdef EMBER_WITH_ZLIB
#include <zlib.h>
#endif

namespace ember::data {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::vector<uint8_t> read_plain(const std::string& path, const std::string& who) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  EMBER_CHECK(f != nullptr, who, ": cannot open ", path, ": ", std::strerror(errno));
  std::vector<uint8_t> bytes;
  if (std::fseek(f.get(), 0, SEEK_END) == 0) {
    const long size = std::ftell(f.get());
    if (size > 0) bytes.reserve(static_cast<size_t>(size));
    std::fseek(f.get(), 0, SEEK_SET);
  }
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f.get())) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  EMBER_CHECK(!std::ferror(f.get()), who, ": error reading ", path);
  return bytes;
}

bool has_gzip_magic(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

#ifdef EMBER_WITH_ZLIB
std::vector<uint8_t> gunzip(const std::vector<uint8_t>& in, const std::string& path,
                            const std::string& who) {
  z_stream z{};
  // 16 + MAX_WBITS: expect a gzip header; concatenated members are rare in data sets.
  EMBER_CHECK(inflateInit2(&z, 16 + MAX_WBITS) == Z_OK, who, ": zlib failed to start on ", path);
  std::vector<uint8_t> out;
  // The gzip trailer holds the uncompressed size modulo 2^32: a good first
  // guess, capped by deflate's best ratio (~1032:1) in case the file is damaged.
  const size_t n = in.size();
  const uint32_t isize =
      n < 4 ? 0 : in[n - 4] | in[n - 3] << 8 | in[n - 2] << 16 | uint32_t(in[n - 1]) << 24;
  out.resize(std::clamp<size_t>(isize, 1 << 16, std::max<size_t>(n * 1032, 1 << 16)));
  z.next_in = const_cast<uint8_t*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  int status = Z_OK;
  while (status == Z_OK) {
    if (z.total_out == out.size()) out.resize(out.size() * 2);
    z.next_out = out.data() + z.total_out;
    z.avail_out = static_cast<uInt>(out.size() - z.total_out);
    status = inflate(&z, Z_NO_FLUSH);
    if (status == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended before the stream did
  }
  const size_t produced = z.total_out, consumed = z.total_in;
  inflateEnd(&z);
  EMBER_CHECK(status == Z_STREAM_END, who, ": ", path,
              " is a damaged or truncated gzip file (compressed byte offset ", consumed, ")");
  out.resize(produced);
  return out;
}
#endif

}  // namespace

bool built_with_zlib() {
#ifdef EMBER_WITH_ZLIB
  return true;
#else
  return false;
#endif
}

FileBytes read_file_bytes(const std::string& path, const std::string& who) {
  FileBytes file{path, read_plain(path, who), false};
  if (!has_gzip_magic(file.bytes)) return file;
#ifdef EMBER_WITH_ZLIB
  file.bytes = gunzip(file.bytes, path, who);
  file.gzipped = true;
  return file;
#else
  EMBER_ERROR(who, ": ", path,
              " is gzip-compressed, but ember was built without zlib; "
              "gunzip it or rebuild ember with zlib");
#endif
}

}  // namespace ember::data
