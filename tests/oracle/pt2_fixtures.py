"""The modules pt2_torch_test.py exports with the installed torch: what users export (layers
in training and inference mode, buffer and input mutation, views, out= calls, no_grad
updates, constants, nested and preserved submodules, dynamic sizes, torch.cond, while_loop,
autocast regions (one writing state), an op with effects, several returns, keyword inputs,
integer, bool and low-precision dtypes).
Exported at test time, so the programs follow the torch installed."""

from typing import NamedTuple

import torch

F = torch.nn.functional


class Fixture(NamedTuple):
    name: str
    module: torch.nn.Module
    args: tuple
    kwargs: dict = {}
    dynamic_shapes: object = None
    preserve: tuple = ()  # submodules whose call signature export keeps


class LinearCounter(torch.nn.Module):  # parameters, a mutated persistent buffer
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.register_buffer("calls", torch.zeros(2))

    def forward(self, x):
        self.calls.add_(1)
        return self.lin(x)


class BatchNormTrain(torch.nn.Module):  # running stats mutated in training mode
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3)
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):
        return self.bn(self.conv(x))


class InPlaceInput(torch.nn.Module):  # an in-place op on a user input
    def forward(self, x, y):
        x.mul_(2)
        return x + y


class WriteThroughView(torch.nn.Module):  # a write through a view of an input
    def forward(self, x):
        x[0].add_(1)
        x.t()[1].zero_()
        return x.sum(0)


class OutCall(torch.nn.Module):  # an out= call into a buffer
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(4))

    def forward(self, x):
        torch.add(x, 1, out=self.acc)
        return self.acc * 2


class NoGradUpdate(torch.nn.Module):  # a parameter written under no_grad
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        with torch.no_grad():
            self.w.mul_(0.5)
        return x * self.w


class Constants(torch.nn.Module):  # a lifted tensor constant, a non-persistent buffer
    def __init__(self):
        super().__init__()
        self.c = torch.tensor([1.0, -2.0, 3.0])
        self.register_buffer("scratch", torch.arange(3.0), persistent=False)

    def forward(self, x):
        return x + self.c * self.scratch


class Nested(torch.nn.Module):  # nested submodules, a LayerNorm, an attention block
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(4)
        self.attn = torch.nn.MultiheadAttention(4, 2, batch_first=True)
        self.head = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())

    def forward(self, x):
        h = self.norm(x)
        a, _ = self.attn(h, h, h)
        return self.head(a + x)


class SharedStorage(torch.nn.Module):  # two inputs viewing one storage, a strided input
    def forward(self, x, y):
        return x * 2 + y.sum()


class DynamicRows(torch.nn.Module):  # a symbolic size, read back with sym_size
    def forward(self, x):
        return x.sum(0) * x.shape[0]


class SizeReads(torch.nn.Module):  # a size passed on as a value: sym_size, SymInt arithmetic, sym_ints
    def forward(self, x):
        n = x.shape[0]
        return x.view(1, n, -1), x.new_zeros(2 * n) + x[: n - 1].sum(), x.narrow(0, 1, n - 1) * n


class Cond(torch.nn.Module):  # torch.cond: the interpreter runs the branch the predicate picks
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x + 1, lambda x: x - 1, (x,))


class ConvPool(torch.nn.Module):  # Conv2d, ReLU, MaxPool2d, flatten, Linear (inference)
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.fc = torch.nn.Linear(3 * 2 * 2, 5)

    def forward(self, x):
        return self.fc(torch.flatten(F.max_pool2d(F.relu(self.conv(x)), 2), 1))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        self.calls.add_(1)
        return self.lin(x).tanh()


class Preserved(torch.nn.Module):  # a submodule whose call signature is preserved
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.out = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.out(self.block(x) + x)


class Lstm(torch.nn.Module):  # a recurrent layer: aten.lstm over a list of weights
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(3, 4, batch_first=True)

    def forward(self, x):
        out, (h, c) = self.rnn(x)
        return out, h, c


class EmbeddingGather(torch.nn.Module):  # integer inputs: embedding, gather, argmax
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4)

    def forward(self, idx, pick):
        e = self.emb(idx)
        return torch.gather(e, 2, pick), e.argmax(-1)


class GroupNorm(torch.nn.Module):  # GroupNorm and InstanceNorm, GELU
    def __init__(self):
        super().__init__()
        self.gn = torch.nn.GroupNorm(2, 4)
        self.inorm = torch.nn.InstanceNorm1d(4, affine=True)

    def forward(self, x):
        return F.gelu(self.gn(x)) + self.inorm(x)


class Sdpa(torch.nn.Module):  # scaled_dot_product_attention with a causal mask
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


class IndexPut(torch.nn.Module):  # index_put_ into a buffer, masked_fill on an input
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.zeros(5, 3))

    def forward(self, x, rows):
        self.table[rows] = x
        x.masked_fill_(x < 0, 0.0)
        return self.table.sum(0)


class DictOut(torch.nn.Module):  # a dict and a nested tuple of outputs, a keyword input
    def forward(self, x, *, scale):
        return {"double": x * 2, "pair": (x + scale, x.sum())}


class Resample(torch.nn.Module):  # interpolate: nearest and bilinear upsampling
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="nearest") + F.interpolate(
            x, scale_factor=2, mode="bilinear", align_corners=False)


class CopyIntoSlice(torch.nn.Module):  # copy_ into a slice of a buffer, a write through narrow
    def __init__(self):
        super().__init__()
        self.register_buffer("history", torch.zeros(6))

    def forward(self, x):
        self.history[:3].copy_(x)
        self.history.narrow(0, 3, 3).mul_(2)
        return self.history * 1


class Batched(torch.nn.Module):  # transpose, contiguous, bmm, softmax, log_softmax
    def forward(self, a, b):
        s = torch.bmm(a, b.transpose(1, 2).contiguous())
        return s.softmax(-1), s.log_softmax(1)


class TopkSort(torch.nn.Module):  # ops with several returns: topk, sort, max.dim
    def forward(self, x):
        v, i = x.topk(2, dim=-1)
        s, j = x.sort(dim=0, descending=True)
        m, k = x.max(dim=1)
        return v, i, s, j, m, k


class WhereCompare(torch.nn.Module):  # comparisons, where, clamp, bool inputs
    def forward(self, x, flags):
        y = torch.where(flags, x, -x)
        return y.clamp(-0.5, 0.5), (y > 0) & flags, torch.isfinite(x).all()


class TwoDims(torch.nn.Module):  # two symbolic sizes, a view that depends on both
    def forward(self, x):
        return x.reshape(-1) * 2, x.transpose(0, 1).sum(-1)


class CondState(torch.nn.Module):  # torch.cond whose branches read a parameter
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3))

    def forward(self, x):
        return torch.cond(x.mean() > 0, lambda x: x * self.w, lambda x: x + self.w, (x,))


class SplitUnbind(torch.nn.Module):  # list-returning views: split, unbind, chunk
    def forward(self, x):
        a, b = x.split([1, 2], dim=0)
        rows = x.unbind(1)
        c = x.chunk(3, dim=1)
        return a + b.sum(0), rows[0] * rows[1], c[2]


class ConvBnTrain1d(torch.nn.Module):  # Conv1d and BatchNorm1d in training mode, no affine
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(2, 4, 3)
        self.bn = torch.nn.BatchNorm1d(4, affine=False)

    def forward(self, x):
        return F.silu(self.bn(self.conv(x)))


class Dtypes(torch.nn.Module):  # half and bfloat16 inputs, casts, integer arithmetic
    def forward(self, h, b, n):
        return h.float() + b.float(), (n * 3) // 2, h.to(torch.bfloat16) * b


class ParamInPlaceNoGrad(torch.nn.Module):  # a weight clamped in place under no_grad, then used
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        with torch.no_grad():
            self.lin.weight.clamp_(-0.1, 0.1)
        return self.lin(x)


class WhileLoop(torch.nn.Module):  # while_loop: a carried counter and tensor, an input read inside
    def forward(self, i, x, n):
        from torch._higher_order_ops.while_loop import while_loop

        return while_loop(lambda i, x: i < n, lambda i, x: (i + 1, x * 2 + n), (i, x))


class Map(torch.nn.Module):  # map over the rows of an input, a parameter passed to each
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3), requires_grad=False)

    def forward(self, xs):
        return torch._higher_order_ops.map(lambda x, w: (x.sin() * w, x.sum()), xs, self.w)


class Scan(torch.nn.Module):  # scan: a running carry over the rows, a closure, stacked outputs
    def forward(self, init, xs, w):
        return torch._higher_order_ops.scan(lambda c, x: (c + x * w, (c * 2, c.sum())), init, xs)


class Autocast(torch.nn.Module):  # a linear under CPU autocast to bfloat16, a float32 tail
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.lin(x).relu()
        return y.float() * 2


class AutocastState(torch.nn.Module):  # writes under autocast: an addmm_ autocast leaves in float32
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 3))
        self.register_buffer("acc", torch.zeros(2, 3))

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            self.acc.addmm_(x, self.w.detach())
            y = torch.mm(x, self.w)
        return y.float() + self.acc


class Effects(torch.nn.Module):  # an op with effects: run_decompositions threads a token through it
    def forward(self, x):
        y = x.sin()
        torch.ops.aten._print("epsmith fixture")
        return y * 2


def fixtures():
    base = torch.arange(12.0).reshape(3, 4)
    rows = {"x": {0: torch.export.Dim("rows", min=2, max=64)}}
    reads = {"x": {0: torch.export.Dim("n", min=3, max=32)}}
    two = {"x": {0: torch.export.Dim("a", min=2, max=16), 1: torch.export.Dim("b", min=2, max=16)}}
    index = torch.tensor([[[0, 3], [1, 2], [3, 3]], [[2, 2], [0, 1], [1, 0]]])
    qkv = tuple(torch.randn(1, 2, 4, 8) for _ in range(3))
    return [
        Fixture("dynamic_rows", DynamicRows(), (torch.randn(4, 3),), dynamic_shapes=rows),
        Fixture("cond", Cond(), (torch.randn(3),)),
        Fixture("size_reads", SizeReads(), (torch.randn(5, 2),), dynamic_shapes=reads),
        Fixture("linear_counter", LinearCounter(), (torch.randn(4, 3),)),
        Fixture("batchnorm_train", BatchNormTrain().train(), (torch.randn(2, 2, 5, 5),)),
        Fixture("in_place_input", InPlaceInput(), (torch.randn(3), torch.randn(3))),
        Fixture("write_through_view", WriteThroughView(), (torch.randn(3, 3),)),
        Fixture("out_call", OutCall(), (torch.randn(4),)),
        Fixture("no_grad_update", NoGradUpdate(), (torch.randn(3),)),
        Fixture("constants", Constants(), (torch.randn(3),)),
        Fixture("nested", Nested().eval(), (torch.randn(2, 3, 4),)),
        Fixture("shared_storage", SharedStorage(), (base.t(), base[1])),
        Fixture("conv_pool", ConvPool().eval(), (torch.randn(1, 2, 4, 4),)),
        Fixture("preserved", Preserved(), (torch.randn(2, 4),), preserve=("block",)),
        Fixture("lstm", Lstm().eval(), (torch.randn(2, 5, 3),)),
        Fixture("embedding_gather", EmbeddingGather(), (torch.tensor([[1, 2, 3], [4, 5, 9]]), index)),
        Fixture("group_norm", GroupNorm(), (torch.randn(2, 4, 5),)),
        Fixture("sdpa", Sdpa(), qkv),
        Fixture("index_put", IndexPut(), (torch.randn(2, 3), torch.tensor([0, 3]))),
        Fixture("dict_out", DictOut(), (torch.randn(3),), {"scale": torch.tensor(0.5)}),
        Fixture("resample", Resample(), (torch.randn(1, 2, 3, 3),)),
        Fixture("copy_into_slice", CopyIntoSlice(), (torch.randn(3),)),
        Fixture("batched", Batched(), (torch.randn(2, 3, 4), torch.randn(2, 5, 4))),
        Fixture("topk_sort", TopkSort(), (torch.randn(4, 5),)),
        Fixture("where_compare", WhereCompare(), (torch.randn(3, 4), torch.rand(3, 4) > 0.5)),
        Fixture("two_dims", TwoDims(), (torch.randn(3, 4),), dynamic_shapes=two),
        Fixture("cond_state", CondState(), (torch.randn(3),)),
        Fixture("split_unbind", SplitUnbind(), (torch.randn(3, 3),)),
        Fixture("conv_bn_train_1d", ConvBnTrain1d().train(), (torch.randn(2, 2, 6),)),
        Fixture("dtypes", Dtypes(), (torch.randn(3).half(), torch.randn(3).bfloat16(), torch.tensor([1, -4, 7]))),
        Fixture("param_in_place_no_grad", ParamInPlaceNoGrad(), (torch.randn(2, 3),)),
        Fixture("while_loop", WhileLoop(), (torch.tensor(0), torch.randn(3), torch.tensor(3))),
        Fixture("map", Map(), (torch.randn(4, 3),)),
        Fixture("scan", Scan(), (torch.randn(3), torch.randn(4, 3), torch.randn(3))),
        Fixture("autocast", Autocast(), (torch.randn(2, 4),)),
        Fixture("autocast_state", AutocastState(), (torch.randn(2, 4),)),
        Fixture("effects", Effects(), (torch.randn(3),)),
    ]
