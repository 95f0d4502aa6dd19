// Seeded random programs of views, writes through them and reads after them, on a user
// input and a buffer with arbitrary layouts: each is built by running every candidate op on
// real ATen tensors (so shapes and strides in meta.val are eager's), then functionalized
// and checked against eager, then functionalized again to check that nothing changes. Views
// of every family the functionalizer inverts appear, in chains, off non-contiguous and
// offset inputs, with reads of stale views in between.
#include <gtest/gtest.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>

#include "tests/functionalizer/support.h"

namespace epsmith {
namespace {

std::string list(c10::IntArrayRef v) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << "]";
  return s.str();
}

std::string meta(const at::Tensor& t) {
  return std::string(t.scalar_type() == at::kDouble ? "f64" : "f32") + list(t.sizes()) +
         "<stride=" + list(t.strides()) + ", offset=" + std::to_string(t.storage_offset()) + ">";
}

class Builder {
 public:
  explicit Builder(uint32_t seed) : rng_(seed) {}

  std::string build() {
    body_ << "graph {\n";
    live_.push_back({"b_buf", input("b_buf")});
    live_.push_back({"x", input("x")});
    const int steps = 8 + pick(16);
    for (int i = 0; i < steps; ++i) step();
    const std::string returned = outputs_text();
    body_ << "  return (" << returned << ")\n}\n";
    body_ << "signature {\n  input buffer %b_buf -> \"buf\" persistent=True\n  input user_input %x\n";
    for (const auto& o : outputs_) body_ << "  output user_output %" << o << "\n";
    body_ << "}\n";
    return body_.str();
  }

 private:
  struct Live {
    std::string name;
    at::Tensor t;
  };

  int pick(int n) { return n <= 0 ? 0 : static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

  // A placeholder with a random layout: contiguous, transposed, sliced with a step, or offset.
  at::Tensor input(const std::string& name) {
    at::Tensor storage = at::zeros({64});
    at::Tensor t;
    switch (pick(4)) {
      case 0: t = storage.narrow(0, 0, 24).view({4, 6}); break;
      case 1: t = storage.narrow(0, 0, 24).view({6, 4}).t(); break;
      case 2: t = storage.as_strided({3, 4}, {10, 2}, 3); break;
      default: t = storage.narrow(0, 5, 24).view({2, 3, 4}); break;
    }
    body_ << "  %" << name << ": " << meta(t) << " = placeholder\n";
    return t;
  }

  std::string fresh(const std::string& base) { return base + "_" + std::to_string(next_++); }

  void emit(const std::string& name, const at::Tensor& t, const std::string& call) {
    body_ << "  %" << name << ": " << meta(t) << " = " << call << "\n";
  }

  void step() {
    Live src = live_[static_cast<size_t>(pick(static_cast<int>(live_.size())))];
    const at::Tensor& t = src.t;
    const int64_t rank = t.dim();
    const std::string a = "%" + src.name;
    if (t.numel() == 0) return;
    switch (pick(16)) {
      case 0: {  // select
        if (rank == 0) return;
        int64_t d = pick(static_cast<int>(rank)), i = pick(static_cast<int>(t.size(d)));
        addView("select", t.select(d, i),
                "aten::select.int(" + a + ", " + std::to_string(d) + ", " + std::to_string(i) + ")");
        return;
      }
      case 1: {  // slice with a step
        if (rank == 0) return;
        int64_t d = pick(static_cast<int>(rank)), n = t.size(d);
        int64_t start = pick(static_cast<int>(n)), end = start + 1 + pick(static_cast<int>(n - start)),
                st = 1 + pick(2);
        addView("slice", t.slice(d, start, end, st),
                "aten::slice.Tensor(" + a + ", " + std::to_string(d) + ", " + std::to_string(start) + ", " +
                    std::to_string(end) + ", " + std::to_string(st) + ")");
        return;
      }
      case 2: {  // transpose / permute / unsqueeze
        if (rank >= 2 && pick(2)) {
          int64_t d0 = pick(static_cast<int>(rank)), d1 = -1 - pick(static_cast<int>(rank));
          addView("transpose", t.transpose(d0, d1),
                  "aten::transpose.int(" + a + ", " + std::to_string(d0) + ", " + std::to_string(d1) + ")");
        } else {
          int64_t d = pick(static_cast<int>(rank + 1));
          addView("unsqueeze", t.unsqueeze(d), "aten::unsqueeze(" + a + ", " + std::to_string(d) + ")");
        }
        return;
      }
      case 3: {  // diagonal
        if (rank < 2) return;
        int64_t off = pick(3) - 1;
        addView("diagonal", t.diagonal(off, 0, rank - 1),
                "aten::diagonal(" + a + ", " + std::to_string(off) + ", 0, " + std::to_string(rank - 1) + ")");
        return;
      }
      case 4: {  // view (when the strides allow), squeeze
        if (t.is_contiguous() && t.numel() > 0) {
          addView("view", t.view({-1}), "aten::view(" + a + ", [-1])");
        } else {
          addView("squeeze", t.squeeze(), "aten::squeeze(" + a + ")");
        }
        return;
      }
      case 5: {  // split / unbind, one element kept
        if (rank == 0 || t.size(0) < 2) return;
        if (pick(2)) {
          auto parts = t.split(1 + pick(static_cast<int>(t.size(0) - 1)), 0);
          std::string tuple = "(";
          for (size_t i = 0; i < parts.size(); ++i) tuple += (i ? ", " : "") + meta(parts[i]);
          const std::string name = fresh("split");
          body_ << "  %" << name << ": " << tuple << ") = aten::split.Tensor(" << a << ", " << parts[0].size(0)
                << ")\n";
          size_t k = static_cast<size_t>(pick(static_cast<int>(parts.size())));
          std::string item = fresh("getitem");
          emit(item, parts[k], "operator.getitem(%" + name + ", " + std::to_string(k) + ")");
          live_.push_back({item, parts[k]});
        } else {
          auto parts = t.unbind(0);
          std::string tuple = "(";
          for (size_t i = 0; i < parts.size(); ++i) tuple += (i ? ", " : "") + meta(parts[i]);
          const std::string name = fresh("unbind");
          body_ << "  %" << name << ": " << tuple << ") = aten::unbind.int(" << a << ")\n";
          size_t k = static_cast<size_t>(pick(static_cast<int>(parts.size())));
          std::string item = fresh("getitem");
          emit(item, parts[k], "operator.getitem(%" + name + ", " + std::to_string(k) + ")");
          live_.push_back({item, parts[k]});
        }
        return;
      }
      case 6:
      case 7: {  // a write
        const std::string name = fresh("write");
        switch (pick(4)) {
          case 0: emit(name, t, "aten::add_.Scalar(" + a + ", " + std::to_string(1 + pick(5)) + ")"); break;
          case 1: emit(name, t, "aten::mul_.Scalar(" + a + ", -2)"); break;
          case 2: emit(name, t, "aten::fill_.Scalar(" + a + ", " + std::to_string(pick(7)) + ")"); break;
          default: {
            const std::string neg = fresh("neg");
            emit(neg, t.neg().contiguous(), "aten::neg(" + a + ")");
            emit(name, t, "aten::copy_(" + a + ", %" + neg + ")");
          }
        }
        return;
      }
      case 9: {  // permute / movedim / narrow with a negative start
        if (rank < 1) return;
        if (pick(2)) {
          std::vector<int64_t> perm(static_cast<size_t>(rank));
          std::iota(perm.begin(), perm.end(), 0);
          std::shuffle(perm.begin(), perm.end(), rng_);
          if (pick(2)) {
            addView("permute", t.permute(perm), "aten::permute(" + a + ", " + list(perm) + ")");
          } else {
            addView("movedim", t.movedim(perm[0], 0),
                    "aten::movedim.int(" + a + ", " + std::to_string(perm[0]) + ", 0)");
          }
        } else {
          int64_t d = pick(static_cast<int>(rank)), n = t.size(d), len = 1 + pick(static_cast<int>(n));
          int64_t start = -len - pick(static_cast<int>(n - len + 1));
          addView("narrow", t.narrow(d, start, len),
                  "aten::narrow(" + a + ", " + std::to_string(d) + ", " + std::to_string(start) + ", " +
                      std::to_string(len) + ")");
        }
        return;
      }
      case 10: {  // reshape / contiguous: views only when the strides allow
        if (pick(2)) {
          addView("reshape", t.reshape({-1}), "aten::reshape(" + a + ", [-1])");
        } else {
          addView("contiguous", t.contiguous(), "aten::contiguous(" + a + ")");
        }
        return;
      }
      case 11: {  // metadata mutation of an intermediate
        const std::string clone = fresh("clone");
        at::Tensor c = t.clone(at::MemoryFormat::Contiguous);
        emit(clone, c, "aten::clone(" + a + ", memory_format=torch.contiguous_format)");
        const std::string name = fresh("meta");
        if (rank >= 2) {
          c.transpose_(0, rank - 1);
          emit(name, c, "aten::transpose_(%" + clone + ", 0, " + std::to_string(rank - 1) + ")");
        } else {
          c.unsqueeze_(0);
          emit(name, c, "aten::unsqueeze_(%" + clone + ", 0)");
        }
        live_.push_back({clone, c});
        return;
      }
      case 12: {  // out= into a view, from a value that does not overlap it
        const std::string neg = fresh("neg");
        emit(neg, t.neg().contiguous(), "aten::neg(" + a + ")");
        const std::string name = fresh("out");
        emit(name, t, "aten::abs.out(%" + neg + ", out=" + a + ")");
        return;
      }
      case 13: {  // as_strided of a contiguous clone; unfold without overlap
        const std::string clone = fresh("clone");
        at::Tensor c = t.clone(at::MemoryFormat::Contiguous);
        emit(clone, c, "aten::clone(" + a + ", memory_format=torch.contiguous_format)");
        live_.push_back({clone, c});
        if (rank == 0) return;
        if (pick(2)) {
          int64_t n = c.numel(), len = 1 + pick(static_cast<int>((n + 1) / 2));
          addView("as_strided", c.as_strided({len}, {2}, n - 1 - 2 * (len - 1)),
                  "aten::as_strided(%" + clone + ", [" + std::to_string(len) + "], [2], " +
                      std::to_string(n - 1 - 2 * (len - 1)) + ")");
        } else {
          int64_t d = pick(static_cast<int>(rank)), size = 1 + pick(static_cast<int>(c.size(d)));
          int64_t st = size + pick(2);
          addView("unfold", c.unfold(d, size, st),
                  "aten::unfold(%" + clone + ", " + std::to_string(d) + ", " + std::to_string(size) + ", " +
                      std::to_string(st) + ")");
        }
        return;
      }
      case 14: {  // a write that promotes: float64 into float32, cast back on write
        const std::string wide = fresh("wide");
        at::Tensor w = t.to(at::kDouble).contiguous();
        emit(wide, w, "aten::_to_copy(" + a + ", dtype=torch.float64)");
        const std::string name = fresh("write");
        emit(name, t, "aten::sub_.Tensor(" + a + ", %" + wide + ", alpha=2)");
        return;
      }
      default: {  // a read, returned
        const std::string name = fresh("read");
        emit(name, t.mul(3).contiguous(), "aten::mul.Scalar(" + a + ", 3)");
        outputs_.push_back(name);
      }
    }
  }

  void addView(const std::string& base, const at::Tensor& v, const std::string& call) {
    const std::string name = fresh(base);
    emit(name, v, call);
    live_.push_back({name, v});
  }

  std::string outputs_text() {
    if (outputs_.empty()) {
      const std::string name = fresh("read");
      body_ << "  %" << name << ": " << meta(live_[1].t.mul(1).contiguous()) << " = aten::mul.Scalar(%x, 1)\n";
      outputs_.push_back(name);
    }
    std::string s;
    for (const auto& o : outputs_) s += (s.empty() ? "%" : ", %") + o;
    return s;
  }

  std::mt19937 rng_;
  std::ostringstream body_;
  std::vector<Live> live_;
  std::vector<std::string> outputs_;
  int next_ = 0;
};

TEST(FunctionalizeRandom, ViewsAndWritesAgreeWithEager) {
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    const std::string text = Builder(seed).build();
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + text);
    auto p = test::program(text);
    auto f = test::functionalAgreesWithEager(p);
    // Functionalizing the result changes nothing.
    auto again = functionalize(f);
    EXPECT_TRUE(again.ok() && printProgramText(again.value()) == printProgramText(f))
        << (again.ok() ? printProgramText(again.value()) : again.error().str());
    if (::testing::Test::HasFailure()) return;  // one readable failure, not hundreds
  }
}

// Programs whose metadata lies (sizes, strides, dtypes and ranks of meta.val changed at
// random; the verifier does not check them) must never crash or throw: functionalize either
// refuses them or returns a program that verifies in the ATEN dialect.
TEST(FunctionalizeRandom, LyingMetadataNeverCrashes) {
  std::mt19937 rng(99);
  int refused = 0, accepted = 0;
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    auto p = test::program(Builder(seed).build());
    for (Node& n : p.graph().nodes()) {
      TensorMeta* m = n.meta.val.tensor();
      if (!m || rng() % 4 != 0) continue;
      switch (rng() % 5) {
        case 0: m->sizes.push_back(static_cast<int64_t>(rng() % 3)); break;
        case 1:
          if (!m->sizes.empty()) m->sizes.pop_back();
          break;
        case 2:
          if (!m->strides.empty()) m->strides[0] = -static_cast<int64_t>(rng() % 5);
          break;
        case 3: m->dtype = ScalarType::Long; break;
        default:
          if (!m->sizes.empty()) m->sizes[0] = static_cast<int64_t>(rng() % 9) - 2;
          break;
      }
    }
    std::optional<Expected<ExportedProgram>> r;
    EXPECT_NO_THROW(r.emplace(functionalize(p))) << "seed " << seed;
    if (!r) continue;
    if (r->ok()) {
      ++accepted;
      EXPECT_EQ(test::verifyAten(r->value()), "") << "seed " << seed;
    } else {
      ++refused;
      EXPECT_FALSE(r->error().message.empty());
    }
  }
  EXPECT_GT(accepted, 0) << refused << " refused";
}

}  // namespace
}  // namespace epsmith
