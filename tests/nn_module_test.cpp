// nn::Module (nn/module.cpp, nn/module_holder.h): registration, the tree and
// its PyTorch names, train/eval, to(), zero_grad, apply, printing, hooks,
// summary (nn/utils/summary.cpp).
#include "test_helpers.h"

#include <ember/nn/nn.h>
#include <ember/nn/utils/summary.h>

#include <sstream>
#include <string>
#include <vector>

using namespace ember;
using ember_test::require_values;
using Catch::Contains;

namespace {

// A user module as libtorch code writes one.
struct NetImpl : nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", nn::Linear(2, 3));
    fc2 = register_module("fc2", nn::Linear(nn::LinearOptions(3, 1).bias(false)));
    scale = register_parameter("scale", ones({1}));
    steps = register_buffer("steps", zeros({1}, kLong));
  }
  Tensor forward(const Tensor& x) { return fc2->forward(fc1->forward(x).relu()) * scale; }
  nn::Linear fc1{nullptr};
  nn::Linear fc2{nullptr};
  Tensor scale;
  Tensor steps;
};
EMBER_MODULE(Net);

// x -> x * factor, with a hookable one-tensor forward and no parameters.
struct ScaleImpl : nn::Module {
  explicit ScaleImpl(double factor) : factor(factor) {}
  Tensor forward(const Tensor& x) { return x * factor; }
  double factor;
};
EMBER_MODULE(Scale);

std::string printed(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

}  // namespace

TEST_CASE("named_parameters and named_buffers use PyTorch's dotted names", "[nn]") {
  // PyTorch: own parameters first, then each child's, prefixed by its name.
  Net net;
  REQUIRE(net->named_parameters().keys() ==
          std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "fc2.weight"});
  REQUIRE(net->named_parameters(false).keys() == std::vector<std::string>{"scale"});
  REQUIRE(net->named_buffers().keys() == std::vector<std::string>{"steps"});
  REQUIRE(net->parameters().size() == 4);
  for (const Tensor& p : net->parameters()) REQUIRE(p.requires_grad());
  REQUIRE_FALSE(net->named_buffers()["steps"].requires_grad());
  // The dict holds the same tensors as the members.
  REQUIRE(net->named_parameters()["fc1.weight"].is_same(net->fc1->weight));
}

TEST_CASE("Sequential of Conv2d, BatchNorm2d, ReLU names its tensors as PyTorch", "[nn]") {
  // torch.nn.Sequential(Conv2d(3, 4, 3), BatchNorm2d(4), ReLU(), Flatten(), Linear(16, 2))
  nn::Sequential seq(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU(), nn::Flatten(),
                     nn::Linear(16, 2));
  REQUIRE(seq->named_parameters().keys() ==
          std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "4.weight",
                                   "4.bias"});
  REQUIRE(seq->named_buffers().keys() ==
          std::vector<std::string>{"1.running_mean", "1.running_var", "1.num_batches_tracked"});
  REQUIRE(seq->named_buffers()["1.num_batches_tracked"].scalar_type() == kLong);
  REQUIRE(seq->named_buffers()["1.num_batches_tracked"].dim() == 0);

  nn::Sequential named({{"features", nn::Sequential(nn::Conv2d(1, 2, 3), nn::ReLU())},
                        {"classifier", nn::Linear(2, 1)}});
  REQUIRE(named->named_parameters().keys() ==
          std::vector<std::string>{"features.0.weight", "features.0.bias", "classifier.weight",
                                   "classifier.bias"});
}

TEST_CASE("children and modules list the tree in pre-order with dotted names", "[nn]") {
  nn::Sequential seq(nn::Sequential(nn::Linear(2, 2), nn::ReLU()), nn::Linear(2, 1));
  REQUIRE(seq->named_children().keys() == std::vector<std::string>{"0", "1"});
  REQUIRE(seq->children().size() == 2);
  REQUIRE(seq->named_modules().keys() == std::vector<std::string>{"", "0", "0.0", "0.1", "1"});
  REQUIRE(seq->modules().front().get() == seq.get());
  REQUIRE(seq->modules(false).size() == 4);
  REQUIRE(seq->named_modules("model").keys() ==
          std::vector<std::string>{"model", "model.0", "model.0.0", "model.0.1", "model.1"});
}

TEST_CASE("modules() of a module outside a shared_ptr names the problem", "[nn]") {
  nn::LinearImpl on_stack(2, 2);
  REQUIRE_THROWS_WITH(on_stack.modules(), Contains("not owned by a shared_ptr"));
  REQUIRE(on_stack.modules(false).empty());
}

TEST_CASE("register_* rejects empty, dotted and duplicate names", "[nn]") {
  auto m = std::make_shared<nn::Module>();
  REQUIRE_THROWS_WITH(m->register_parameter("", ones({1})),
                      Contains("register_parameter: parameter name must not be empty"));
  REQUIRE_THROWS_WITH(m->register_parameter("a.b", ones({1})),
                      Contains("must not contain a dot (got 'a.b')"));
  REQUIRE_THROWS_WITH(m->register_buffer("x.y", ones({1})),
                      Contains("register_buffer: buffer name must not contain a dot"));
  m->register_parameter("w", ones({1}));
  REQUIRE_THROWS_WITH(m->register_parameter("w", ones({1})),
                      Contains("Parameter 'w' already defined"));
  REQUIRE_THROWS_WITH(m->register_module("fc", std::shared_ptr<nn::LinearImpl>()),
                      Contains("register_module: submodule 'fc' is null"));
  REQUIRE_THROWS_WITH(m->register_module("a.b", nn::Linear(1, 1)),
                      Contains("submodule name must not contain a dot (got 'a.b')"));
  m->register_module("fc", nn::Linear(1, 1));
  REQUIRE_THROWS_WITH(m->register_module("fc", nn::Linear(1, 1)),
                      Contains("Submodule 'fc' already defined"));
}

TEST_CASE("register_parameter with requires_grad=false and an undefined placeholder", "[nn]") {
  auto m = std::make_shared<nn::Module>();
  m->register_parameter("frozen", ones({2}), /*requires_grad=*/false);
  m->register_parameter("absent", Tensor(), false);
  REQUIRE(m->named_parameters().keys() == std::vector<std::string>{"frozen"});
  REQUIRE_FALSE(m->parameters()[0].requires_grad());
}

TEST_CASE("unregister_module and replace_module edit the children", "[nn]") {
  Net net;
  net->replace_module("fc2", nn::Linear(3, 1));
  REQUIRE(net->named_parameters().keys().back() == "fc2.bias");
  net->unregister_module("fc1");
  REQUIRE(net->named_children().keys() == std::vector<std::string>{"fc2"});
  REQUIRE_THROWS_WITH(net->replace_module("fc9", nn::Linear(3, 1)),
                      Contains("Submodule 'fc9' is not defined"));
  REQUIRE_THROWS_WITH(net->replace_module("fc2", std::shared_ptr<nn::LinearImpl>()),
                      Contains("replace_module: submodule 'fc2' is null"));
  REQUIRE_THROWS_WITH(net->unregister_module("fc1"),
                      Contains("unregister_module: no submodule named 'fc1'"));
}

TEST_CASE("train and eval propagate to every descendant", "[nn]") {
  nn::Sequential seq(nn::Sequential(nn::Dropout(0.5), nn::BatchNorm1d(2)), nn::Linear(2, 1));
  for (const auto& m : seq->modules()) REQUIRE(m->is_training());
  seq->eval();
  for (const auto& m : seq->modules()) REQUIRE_FALSE(m->is_training());
  seq->train();
  for (const auto& m : seq->modules()) REQUIRE(m->is_training());
}

TEST_CASE("to(kDouble) converts parameters, gradients and float buffers in place", "[nn]") {
  nn::Sequential seq(nn::Linear(2, 2), nn::BatchNorm1d(2));
  Tensor weight = seq->named_parameters()["0.weight"];  // a handle taken before to()
  const std::vector<double> before = ember_test::values(weight);
  weight.set_grad(ones({2, 2}));
  const uint32_t version = weight._version();
  seq->to(kDouble);
  REQUIRE(weight.scalar_type() == kDouble);  // the same handle sees the new data
  REQUIRE(seq->at<nn::LinearImpl>(0).weight.scalar_type() == kDouble);
  REQUIRE(weight.grad().scalar_type() == kDouble);
  REQUIRE(weight.requires_grad());
  REQUIRE(weight.is_leaf());
  require_values(weight, before, 1e-7);
  (void)version;
  for (const auto& item : seq->named_parameters()) REQUIRE(item.value().scalar_type() == kDouble);
  REQUIRE(seq->named_buffers()["1.running_mean"].scalar_type() == kDouble);
  REQUIRE(seq->named_buffers()["1.running_var"].scalar_type() == kDouble);
  // As PyTorch: integer buffers keep their dtype.
  REQUIRE(seq->named_buffers()["1.num_batches_tracked"].scalar_type() == kLong);
  // The converted module runs in float64 and trains.
  Tensor y = seq->forward(tensor({{1.0, 2.0}, {3.0, -1.0}}, kDouble));
  REQUIRE(y.scalar_type() == kDouble);
  y.sum().backward();
  REQUIRE(weight.grad().scalar_type() == kDouble);
  seq->to(Device(kCPU), kFloat);
  REQUIRE(weight.scalar_type() == kFloat);
}

TEST_CASE("zero_grad clears gradients or zeroes them in place", "[nn]") {
  nn::Linear fc(2, 1);
  fc(ones({1, 2})).sum().backward();
  REQUIRE(fc->weight.grad().defined());
  fc->zero_grad(/*set_to_none=*/false);
  require_values(fc->weight.grad(), {0, 0});
  require_values(fc->bias.grad(), {0});
  fc->zero_grad();
  REQUIRE_FALSE(fc->weight.grad().defined());
  REQUIRE_FALSE(fc->bias.grad().defined());
  fc->zero_grad();  // no gradients: nothing to do
}

TEST_CASE("apply visits self then descendants in pre-order", "[nn]") {
  nn::Sequential seq(nn::Sequential(nn::Linear(1, 1), nn::ReLU()), nn::Tanh());
  std::vector<std::string> names;
  seq->apply([&](nn::Module& m) { names.push_back(m.name()); });
  REQUIRE(names == std::vector<std::string>{"Sequential", "Sequential", "Linear", "ReLU", "Tanh"});
  std::vector<std::string> paths;
  seq->apply([&](const std::string& path, nn::Module&) { paths.push_back(path); });
  REQUIRE(paths == std::vector<std::string>{"", "0", "0.0", "0.1", "1"});
  int count = 0;
  seq->apply([&](const std::shared_ptr<nn::Module>& m) { count += m != nullptr; });
  REQUIRE(count == 5);
}

TEST_CASE("name() is the class name without Impl", "[nn]") {
  REQUIRE(Net()->name() == "Net");
  REQUIRE(nn::Linear(1, 1)->name() == "Linear");
  REQUIRE(nn::BatchNorm2d(1)->name() == "BatchNorm2d");
}

TEST_CASE("printing a model shows the tree as PyTorch", "[nn]") {
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(3, 32, 3).stride(2).padding(1).bias(false)),
                     nn::BatchNorm2d(32), nn::ReLU(), nn::Flatten(), nn::Linear(32, 10));
  REQUIRE(printed(*seq) ==
          "Sequential(\n"
          "  (0): Conv2d(3, 32, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], bias=false)\n"
          "  (1): BatchNorm2d(32, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)\n"
          "  (2): ReLU()\n"
          "  (3): Flatten(start_dim=1, end_dim=-1)\n"
          "  (4): Linear(in_features=32, out_features=10, bias=true)\n"
          ")");
  Net net;
  std::ostringstream os;
  os << net;  // through the holder
  REQUIRE(os.str() ==
          "Net(\n"
          "  (fc1): Linear(in_features=2, out_features=3, bias=true)\n"
          "  (fc2): Linear(in_features=3, out_features=1, bias=false)\n"
          ")");
}

TEST_CASE("an empty holder says so when used", "[nn]") {
  nn::Linear empty{nullptr};
  REQUIRE_FALSE(empty);
  REQUIRE(empty.is_empty());
  REQUIRE_THROWS_WITH(empty->forward(ones({1, 1})), Contains("Accessing an empty ModuleHolder"));
}

// ------------------------------------------------------------------ hooks

TEST_CASE("forward pre-hooks and forward hooks fire in order and may replace values", "[nn]") {
  Scale scale(2.0);
  std::vector<std::string> events;
  auto pre1 = scale->register_forward_pre_hook([&](nn::Module&, const Tensor& x) {
    events.push_back("pre1");
    return std::optional<Tensor>(x + 1);  // input 1 -> 2
  });
  auto pre2 = scale->register_forward_pre_hook([&](nn::Module&, const Tensor& x) {
    events.push_back("pre2 sees " + std::to_string(x.item<double>()));
  });
  auto post1 = scale->register_forward_hook([&](nn::Module& m, const Tensor& in, const Tensor& out) {
    events.push_back("post1 " + m.name() + " " + std::to_string(in.item<double>()) + " -> " +
                     std::to_string(out.item<double>()));
    return std::optional<Tensor>(out * 10);
  });
  auto post2 = scale->register_forward_hook([&](nn::Module&, const Tensor&, const Tensor& out) {
    events.push_back("post2 sees " + std::to_string(out.item<double>()));
  });
  const Tensor y = scale(tensor({1.0}));
  require_values(y, {40});  // ((1 + 1) * 2) * 10
  REQUIRE(events == std::vector<std::string>{"pre1", "pre2 sees 2.000000",
                                             "post1 Scale 2.000000 -> 4.000000",
                                             "post2 sees 40.000000"});
  // forward() of a user module is the plain call, as libtorch.
  events.clear();
  require_values(scale->forward(tensor({1.0})), {2});
  REQUIRE(events.empty());
  // Removed hooks stop firing; removing twice is harmless.
  pre1.remove();
  post1.remove();
  post1.remove();
  require_values(scale(tensor({1.0})), {2});
  REQUIRE(events == std::vector<std::string>{"pre2 sees 1.000000", "post2 sees 2.000000"});
}

TEST_CASE("hooks of a built-in layer fire once, through the holder or forward()", "[nn]") {
  nn::ReLU relu;
  int calls = 0;
  relu->register_forward_hook([&](nn::Module&, const Tensor&, const Tensor&) { ++calls; });
  relu(tensor({1.0}));
  REQUIRE(calls == 1);
  relu->forward(tensor({1.0}));
  REQUIRE(calls == 2);
}

TEST_CASE("Sequential runs each child's hooks in execution order", "[nn]") {
  nn::Sequential seq(Scale(2.0), nn::ReLU(), Scale(3.0));
  std::vector<std::string> events;
  for (const auto& item : seq->named_children()) {
    const std::string name = item.key();
    item.value()->register_forward_pre_hook(
        [&events, name](nn::Module&, const Tensor&) { events.push_back("pre " + name); });
    item.value()->register_forward_hook([&events, name](nn::Module&, const Tensor&,
                                                        const Tensor&) {
      events.push_back("post " + name);
    });
  }
  seq->register_forward_hook(
      [&](nn::Module&, const Tensor&, const Tensor&) { events.push_back("post seq"); });
  require_values(seq(tensor({1.0, -1.0})), {6, 0});
  REQUIRE(events == std::vector<std::string>{"pre 0", "post 0", "pre 1", "post 1", "pre 2",
                                             "post 2", "post seq"});
}

TEST_CASE("full backward hooks see grad_input and grad_output and can replace grad_input",
          "[nn]") {
  // y = 3x, loss = sum(y * c) with c = (1, 2): grad_output = c, grad_input = 3c.
  Scale scale(3.0);
  std::vector<std::string> events;
  Tensor seen_in, seen_out;
  scale->register_full_backward_hook(
      [&](nn::Module& m, const Tensor& grad_input, const Tensor& grad_output) {
        events.push_back("first " + m.name());
        seen_in = grad_input;
        seen_out = grad_output;
        return std::optional<Tensor>(grad_input * 0.5);
      });
  scale->register_full_backward_hook([&](nn::Module&, const Tensor& grad_input, const Tensor&) {
    events.push_back("second sees " + std::to_string(grad_input.sum().item<double>()));
  });
  const Tensor x = tensor({1.0, 1.0}, kDouble).requires_grad_();
  (scale(x) * tensor({1.0, 2.0}, kDouble)).sum().backward();
  require_values(seen_out, {1, 2});
  require_values(seen_in, {3, 6});
  REQUIRE(events == std::vector<std::string>{"first Scale", "second sees 4.500000"});
  require_values(x.grad(), {1.5, 3});  // the replacement reached x
}

TEST_CASE("a full backward hook on a module whose input needs no grad gets none", "[nn]") {
  nn::Linear fc(nn::LinearOptions(2, 1).bias(false));
  Tensor seen_in = ones({1}), seen_out;
  int calls = 0;
  fc->register_full_backward_hook([&](nn::Module&, const Tensor& gi, const Tensor& go) {
    ++calls;
    seen_in = gi;
    seen_out = go;
  });
  fc(ones({1, 2})).sum().backward();
  REQUIRE(calls == 1);
  REQUIRE_FALSE(seen_in.defined());
  require_values(seen_out, {1});
  REQUIRE(fc->weight.grad().defined());
  // Without grad mode nothing is recorded and the hook does not run.
  {
    NoGradGuard no_grad;
    fc(ones({1, 2}));
  }
  REQUIRE(calls == 1);
}

TEST_CASE("summary lists leaf layers with output shapes and parameter counts", "[nn]") {
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).stride(2).padding(1)),
                     nn::BatchNorm2d(4), nn::ReLU(), nn::Flatten(), nn::Linear(4 * 4 * 4, 10));
  seq->named_parameters()["4.bias"].requires_grad_(false);
  const std::string table = nn::summary(seq, {1, 8, 8});
  // Conv2d: 4*1*3*3 + 4 = 40; BatchNorm2d: 4 + 4; Linear: 64*10 + 10 = 650.
  const std::string want =
      "----------------------------------------------------------------\n"
      "        Layer (type)               Output Shape         Param #\n"
      "================================================================\n"
      "            Conv2d-1              [-1, 4, 4, 4]              40\n"
      "       BatchNorm2d-2              [-1, 4, 4, 4]               8\n"
      "              ReLU-3              [-1, 4, 4, 4]               0\n"
      "           Flatten-4                   [-1, 64]               0\n"
      "            Linear-5                   [-1, 10]             650\n"
      "================================================================\n"
      "Total params: 698\n"
      "Trainable params: 688\n"
      "Non-trainable params: 10\n"
      "----------------------------------------------------------------\n";
  REQUIRE(table == want);
  // The model is back in training mode, with no hook left and its stats untouched.
  REQUIRE(seq->is_training());
  REQUIRE(seq->named_buffers()["1.num_batches_tracked"].item<int64_t>() == 0);
  int calls = 0;
  seq->ptr(0)->register_forward_hook([&](nn::Module&, const Tensor&, const Tensor&) { ++calls; });
  seq(zeros({1, 1, 8, 8}));
  REQUIRE(calls == 1);
  // Counts of four digits and more get thousands separators: 1000 * 1000 + 1000.
  nn::Sequential big(nn::Linear(1000, 1000));
  CHECK_THAT(nn::summary(big, {1000}), Catch::Contains("Total params: 1,001,000\n"));
}

TEST_CASE("a tensor registered twice (tied weights) is listed once, as PyTorch", "[nn]") {
  // As `decoder.weight = encoder.weight` in PyTorch: named_parameters() keeps the first name.
  struct TiedImpl : nn::Module {
    TiedImpl() {
      encoder = register_module("encoder", nn::Linear(3, 3));
      register_parameter("decoder_weight", encoder->weight);
    }
    nn::Linear encoder{nullptr};
  };
  auto tied = std::make_shared<TiedImpl>();
  REQUIRE(tied->named_parameters().keys() ==
          std::vector<std::string>{"decoder_weight", "encoder.bias"});
  REQUIRE(tied->named_parameters(false).keys() == std::vector<std::string>{"decoder_weight"});
  REQUIRE(tied->parameters().size() == 2);
}

TEST_CASE("hook handles and backward hooks outlive their module safely", "[nn]") {
  nn::RemovableHandle handle;
  Tensor y;
  const Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  int backward_calls = 0;
  {
    Scale scale(2.0);
    handle = scale->register_forward_hook([](nn::Module&, const Tensor&, const Tensor&) {});
    scale->register_full_backward_hook([&](nn::Module& m, const Tensor&, const Tensor&) {
      REQUIRE(m.name() == "Scale");  // the graph kept the module alive
      ++backward_calls;
    });
    y = scale(x);
  }
  y.sum().backward();
  REQUIRE(backward_calls == 1);
  require_values(x.grad(), {2, 2});
  handle.remove();  // the module is gone: nothing to do
}

TEST_CASE("a module with a backward hook still has a second derivative", "[nn]") {
  manual_seed(31);
  nn::Sequential seq(nn::Linear(3, 2), nn::Tanh());
  seq->to(kDouble);
  seq->register_full_backward_hook([](nn::Module&, const Tensor&, const Tensor&) {});
  seq->ptr(0)->register_full_backward_hook([](nn::Module&, const Tensor&, const Tensor&) {});
  const Tensor x = randn({4, 3}, kDouble).t().contiguous().t().requires_grad_();
  REQUIRE_GRADCHECK(
      autograd::gradgradcheck([&](const tensor_list& in) { return seq(in[0]); }, {x}));
}
