#include "ember/nn/serialize/checkpoint.h"

#include <bit>

#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/cuda/runtime.h"
#include "ember/nn/serialize/json.h"
#include "ember/nn/serialize/safetensors.h"

namespace ember {
namespace {

constexpr const char* kFormatKey = "ember.format";
constexpr const char* kFormatValue = "checkpoint/1";
// Section names in order, as a JSON array: an empty section has no tensor to carry its name.
constexpr const char* kSectionsKey = "ember.sections";
constexpr const char* kReservedPrefix = "ember.";

std::string sections_json(const Checkpoint& checkpoint) {
  std::string out = "[";
  for (const auto& item : checkpoint.sections) {
    if (out.size() > 1) out += ',';
    out += serialize::json_quote(item.key());
  }
  return out + "]";
}

std::vector<std::string> parse_sections(const std::string& path, const std::string& text) {
  const auto fail = [&] {
    EMBER_ERROR("load_checkpoint: '", path, "': metadata '", kSectionsKey,
                "' is not a JSON array of strings");
  };
  serialize::JsonValue v;
  try {
    v = serialize::parse_json(text);
  } catch (const serialize::JsonError&) { fail(); }
  if (v.kind != serialize::JsonValue::Kind::Array) fail();
  std::vector<std::string> names;
  for (const auto& item : v.array) {
    if (item.kind != serialize::JsonValue::Kind::String) fail();
    names.push_back(item.text);
  }
  return names;
}

}  // namespace

TensorDict& Checkpoint::section(const std::string& name) {
  if (TensorDict* s = sections.find(name)) return *s;
  return sections.insert(name, TensorDict("Tensor"));
}

const TensorDict& Checkpoint::section(const std::string& name) const {
  const TensorDict* s = sections.find(name);
  EMBER_CHECK(s != nullptr, "Checkpoint: no section '", name, "'");
  return *s;
}

void save_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  std::map<std::string, std::string> metadata;
  for (const auto& [key, value] : checkpoint.metadata) {
    EMBER_CHECK(key.rfind(kReservedPrefix, 0) != 0, "save_checkpoint: '", path, "': metadata key '",
                key, "' uses the reserved prefix '", kReservedPrefix, "'");
    metadata.emplace(key, value);
  }
  metadata.emplace(kFormatKey, kFormatValue);
  metadata.emplace(kSectionsKey, sections_json(checkpoint));

  TensorDict flat("Tensor");
  for (const auto& section : checkpoint.sections) {
    const std::string& name = section.key();
    EMBER_CHECK(!name.empty() && name.find('/') == std::string::npos, "save_checkpoint: '", path,
                "': section name '", name, "' must be non-empty and contain no '/'");
    for (const auto& item : section.value()) flat.insert(name + "/" + item.key(), item.value());
  }
  save_safetensors(path, flat, metadata);
}

Checkpoint load_checkpoint(const std::string& path) {
  SafetensorsFile file = load_safetensors(path);
  const auto format = file.metadata.find(kFormatKey);
  EMBER_CHECK(format != file.metadata.end(), "load_checkpoint: '", path,
              "': not an ember checkpoint (no '", kFormatKey, "' in its metadata)");
  EMBER_CHECK(format->second == kFormatValue, "load_checkpoint: '", path, "': format '",
              format->second, "' is not supported (this build reads '", kFormatValue, "')");
  const auto sections = file.metadata.find(kSectionsKey);
  EMBER_CHECK(sections != file.metadata.end(), "load_checkpoint: '", path, "': metadata '",
              kSectionsKey, "' is missing");

  Checkpoint checkpoint;
  for (const std::string& name : parse_sections(path, sections->second)) {
    EMBER_CHECK(!checkpoint.has_section(name), "load_checkpoint: '", path, "': section '", name,
                "' is listed twice");
    checkpoint.section(name);
  }
  for (const auto& item : file.tensors) {
    const std::string& key = item.key();
    const size_t slash = key.find('/');
    EMBER_CHECK(slash != std::string::npos, "load_checkpoint: '", path, "': tensor '", key,
                "' has no '<section>/' prefix");
    TensorDict* section = checkpoint.sections.find(key.substr(0, slash));
    EMBER_CHECK(section != nullptr, "load_checkpoint: '", path, "': tensor '", key,
                "' belongs to no listed section");
    section->insert(key.substr(slash + 1), item.value());
  }
  for (auto& [key, value] : file.metadata)
    if (key.rfind(kReservedPrefix, 0) != 0) checkpoint.metadata.emplace(key, std::move(value));
  return checkpoint;
}

namespace {

Tensor generator_state(const Generator& g) {
  Tensor t = empty({2}, kLong);
  t.data_ptr<int64_t>()[0] = std::bit_cast<int64_t>(g.seed());
  t.data_ptr<int64_t>()[1] = std::bit_cast<int64_t>(g.offset());
  return t;
}

std::string cuda_key(int index) { return "cuda:" + std::to_string(index); }

}  // namespace

TensorDict rng_state() {
  TensorDict state("Tensor");
  state.insert("cpu", generator_state(default_generator(Device(kCPU))));
  for (int i = 0; i < cuda::device_count(); ++i)
    state.insert(cuda_key(i), generator_state(default_generator(Device(kCUDA, i))));
  return state;
}

void set_rng_state(const TensorDict& state) {
  for (const auto& item : state) {
    const std::string& key = item.key();
    std::optional<Device> device;
    if (key == "cpu") device = Device(kCPU);
    for (int i = 0; !device && i < cuda::device_count(); ++i)
      if (key == cuda_key(i)) device = Device(kCUDA, i);
    EMBER_CHECK(device.has_value(), "set_rng_state: no generator '", key,
                "' on this machine (expected 'cpu' or 'cuda:<index>' of a present device)");
    const Tensor& t = item.value();
    EMBER_CHECK(t.defined() && t.scalar_type() == kLong && t.dim() == 1 && t.numel() == 2,
                "set_rng_state: '", key, "' must be an int64 tensor [2] (seed, offset), got ",
                t.defined() ? t.toString() : std::string("an undefined tensor"));
    const Tensor c = t.cpu().contiguous();
    Generator& g = default_generator(*device);
    g.manual_seed(std::bit_cast<uint64_t>(c.data_ptr<int64_t>()[0]));
    g.set_offset(std::bit_cast<uint64_t>(c.data_ptr<int64_t>()[1]));
  }
}

}  // namespace ember
