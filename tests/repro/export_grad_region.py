"""Writes OUT.pt2: a module whose forward updates a parameter and a buffer under no_grad,
exported by the installed torch, which writes the region as a wrap_with_set_grad_enabled
subgraph (tests/repro/repro_test.cpp)."""
import sys

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
        self.register_buffer("n", torch.zeros(3))

    def forward(self, x):
        with torch.no_grad():
            self.w.mul_(0.5)
            self.n.add_(x)
        return x * self.w


torch.export.save(torch.export.export(M(), (torch.tensor([0.25, 1.0, -3.0]),)), sys.argv[1])
