#pragma once
// Optimizers and learning-rate schedulers (ember::optim), as torch::optim.
#include "ember/nn/optim/adam.h"
#include "ember/nn/optim/adamw.h"
#include "ember/nn/optim/optimizer.h"
#include "ember/nn/optim/schedulers/cosine_annealing_lr.h"
#include "ember/nn/optim/schedulers/exponential_lr.h"
#include "ember/nn/optim/schedulers/linear_lr.h"
#include "ember/nn/optim/schedulers/lr_scheduler.h"
#include "ember/nn/optim/schedulers/multi_step_lr.h"
#include "ember/nn/optim/schedulers/one_cycle_lr.h"
#include "ember/nn/optim/schedulers/reduce_lr_on_plateau.h"
#include "ember/nn/optim/schedulers/step_lr.h"
#include "ember/nn/optim/sgd.h"
