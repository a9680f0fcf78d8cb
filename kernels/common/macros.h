#pragma once
// EMBER_HOST_DEVICE (core/host_device.h) marks maths shared by the CPU and
// CUDA backends.
#include "ember/core/host_device.h"
