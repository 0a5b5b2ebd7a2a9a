// DFT (opset 17, and 20 with the axis as an input) and STFT (opset 17). The last input dimension
// holds the real part (size 1) or the real and imaginary parts (size 2); outputs always end in 2.
#include "backends/ref/signal_util.h"

namespace ig {
namespace {

template <typename T>
Status dft_typed(KernelContext& ctx) {
  using C = compute_t<T>;
  const Tensor& x = ctx.input(0);
  const int r = x.rank();
  if (r < 2 || (x.dim(-1) != 1 && x.dim(-1) != 2))
    return ctx.fail("input must end in a dimension of 1 or 2, got {}", x.describe());
  // Negative axes count from the back of the whole input, complex dimension included. Opset 17
  // takes the axis as an attribute (default 1), opset 20 as an optional third input (default -2,
  // the last signal axis); nothing else changed.
  const int64_t given_axis = ctx.opset >= 20 ? (ctx.has_input(2) ? ctx.input(2).as_int64(0) : -2)
                                             : ctx.node.attr_int("axis", 1);
  int64_t axis = given_axis;
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r - 1)
    return ctx.fail("axis {} is out of range for input {}", given_axis, x.describe());
  const bool inverse = ctx.node.attr_int("inverse", 0) != 0;
  const bool onesided = ctx.node.attr_int("onesided", 0) != 0;
  const int64_t n_in = x.dim(static_cast<int>(axis));
  // IRFFT (onesided and inverse): a one-sided complex spectrum in, the full real signal out, of
  // length 2 * (n_in - 1) unless dft_length says otherwise.
  const bool irfft = inverse && onesided;
  if (irfft && x.dim(-1) != 2)
    return ctx.fail("onesided inverse DFT (IRFFT) takes complex input, got {}", x.describe());
  int64_t n = irfft ? 2 * (n_in - 1) : n_in;
  if (ctx.has_input(1)) {
    n = ctx.input(1).as_int64(0);
    if (n <= 0) return ctx.fail("dft_length must be positive, got {}", n);
  }
  if (n <= 0 && !ctx.has_input(1)) return ctx.fail("cannot transform an axis of {}", n_in);
  const int64_t bins = irfft ? n : onesided ? n / 2 + 1 : n;
  Shape out_shape = x.shape();
  out_shape[static_cast<size_t>(axis)] = bins;
  out_shape.back() = irfft ? 1 : 2;
  Tensor& y = ctx.output(0, x.dtype(), out_shape);
  const auto xv = signal::to_compute_vector<T>(x);
  const int64_t cx = x.dim(-1);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dim(d);
  for (int d = axis + 1; d < r - 1; ++d) inner *= x.dim(d);
  std::vector<C> buf(static_cast<size_t>(2 * bins));
  T* py = y.data<T>();
  std::vector<C> full_re, full_im;  // IRFFT: the spectrum completed by Hermitian symmetry
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const C* base = xv.data() + (o * n_in * inner + i) * cx;
      if (irfft) {
        signal::hermitian_spectrum(base, base + 1, inner * cx, n_in, n, full_re, full_im);
        signal::dft(full_re.data(), full_im.data(), 1, n, n, true, n, buf.data());
        for (int64_t k = 0; k < n; ++k)
          py[(o * n + k) * inner + i] = from_compute<T>(buf[static_cast<size_t>(2 * k)]);
        continue;
      }
      signal::dft(base, cx == 2 ? base + 1 : nullptr, inner * cx, n_in, n, inverse, bins,
                  buf.data());
      for (int64_t k = 0; k < bins; ++k) {
        const int64_t off = ((o * bins + k) * inner + i) * 2;
        py[off] = from_compute<T>(buf[static_cast<size_t>(2 * k)]);
        py[off + 1] = from_compute<T>(buf[static_cast<size_t>(2 * k + 1)]);
      }
    }
  }
  return Status::Ok();
}

template <typename T>
Status stft_typed(KernelContext& ctx) {
  using C = compute_t<T>;
  const Tensor& sig = ctx.input(0);
  if (sig.rank() != 3 || (sig.dim(2) != 1 && sig.dim(2) != 2))
    return ctx.fail("signal must be [batch, length, 1 or 2], got {}", sig.describe());
  const int64_t step = ctx.input(1).as_int64(0);
  if (step <= 0) return ctx.fail("frame_step must be positive, got {}", step);
  std::vector<C> window;
  int64_t frame = -1;
  if (ctx.has_input(2)) {
    if (ctx.input(2).dtype() != sig.dtype() || ctx.input(2).rank() != 1)
      return ctx.fail("window must be a 1-D tensor of the signal's type");
    window = signal::to_compute_vector<T>(ctx.input(2));
    frame = static_cast<int64_t>(window.size());
  }
  if (ctx.has_input(3)) {
    const int64_t fl = ctx.input(3).as_int64(0);
    if (frame >= 0 && fl != frame)
      return ctx.fail("frame_length {} != window length {}", fl, frame);
    frame = fl;
  }
  if (frame <= 0) return ctx.fail("frame length must be given by window or frame_length");
  if (window.empty()) window.assign(static_cast<size_t>(frame), C(1));
  const int64_t B = sig.dim(0), L = sig.dim(1), cx = sig.dim(2);
  if (L < frame) return ctx.fail("signal length {} is shorter than a frame ({})", L, frame);
  const int64_t frames = 1 + (L - frame) / step;
  const bool onesided = ctx.node.attr_int("onesided", 1) != 0;
  const int64_t bins = onesided ? frame / 2 + 1 : frame;
  Tensor& y = ctx.output(0, sig.dtype(), {B, frames, bins, 2});
  const auto sv = signal::to_compute_vector<T>(sig);
  std::vector<C> re(static_cast<size_t>(frame)), im(static_cast<size_t>(frame));
  std::vector<C> buf(static_cast<size_t>(2 * bins));
  T* py = y.data<T>();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t m = 0; m < frame; ++m) {
        const C* s = sv.data() + (b * L + f * step + m) * cx;
        re[static_cast<size_t>(m)] = s[0] * window[static_cast<size_t>(m)];
        im[static_cast<size_t>(m)] = cx == 2 ? s[1] * window[static_cast<size_t>(m)] : C(0);
      }
      signal::dft(re.data(), cx == 2 ? im.data() : nullptr, 1, frame, frame, false, bins,
                  buf.data());
      T* out = py + (b * frames + f) * bins * 2;
      for (int64_t k = 0; k < 2 * bins; ++k) out[k] = from_compute<T>(buf[static_cast<size_t>(k)]);
    }
  }
  return Status::Ok();
}

Status dft_kernel(KernelContext& ctx) {
  return dispatch_float(ctx.input(0).dtype(),
                        [&](auto tag) { return dft_typed<typename decltype(tag)::type>(ctx); });
}
Status stft_kernel(KernelContext& ctx) {
  return dispatch_float(ctx.input(0).dtype(),
                        [&](auto tag) { return stft_typed<typename decltype(tag)::type>(ctx); });
}

IG_REGISTER_KERNEL("", "DFT", 17, kMaxOpset, dft_kernel);
IG_REGISTER_KERNEL("", "STFT", 17, kMaxOpset, stft_kernel);

}  // namespace
}  // namespace ig
