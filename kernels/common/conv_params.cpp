#include "ember/kernels/common/conv_params.h"

#include <sstream>

namespace ember {

// Bump kConvKeyFormat whenever the text below changes meaning, so that a
// saved cache written with the old format is ignored instead of misread.
std::string ConvParams::key() const {
  std::ostringstream os;
  os << "n" << n << ",c" << c << ",h" << h << ",w" << w << ",k" << k << ",r" << r << ",s" << s
     << ",g" << groups << ",st" << stride[0] << "x" << stride[1] << ",pad" << padding[0] << "x"
     << padding[1] << ",dil" << dilation[0] << "x" << dilation[1] << "," << dtype_name(dtype);
  if (inference) os << ",inference";  // Winograd keeps its transformed weights there
  return os.str();
}

const char* conv_pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::kForward: return "forward";
    case ConvPass::kBackwardData: return "backward_data";
    case ConvPass::kBackwardWeight: return "backward_weight";
  }
  return "unknown";
}

}  // namespace ember
