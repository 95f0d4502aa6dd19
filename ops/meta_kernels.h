// Which ops this process can run on meta tensors, read from the c10 dispatcher.
#pragma once

#include "ir/op_info.h"

namespace epsmith {

// Whether this process can run `op` on meta tensors: the dispatcher holds a Meta kernel or a
// composite one for it. PyTorch registers some meta kernels only from Python
// (torch/_meta_registrations.py), so a process without Python lacks them; LibTorch's C++
// functionalization runs a mutable op's meta kernel first and raises there (pytorch#105105).
bool runsOnMetaHere(const OpInfo& op);

}  // namespace epsmith
