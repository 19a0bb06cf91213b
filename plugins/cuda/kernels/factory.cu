// Factories: fill, arange, and the random numbers uniform and normal
// (ops.md "Factories" and "Random numbers").
#include "kernels.h"
#include "launch.cuh"
#include "loop.cuh"
#include "registration.cuh"

namespace ember::gpu {

namespace {

// out[i] = generator(i) for element i in row-major order of out's shape.
template <class T, class Generator>
__global__ void generate_kernel(Loop<1> loop, Generator generator) {
  for (int64_t i = global_thread(); i < loop.numel; i += grid_threads()) {
    char* p[1];
    loop.locate(i, p);
    *reinterpret_cast<T*>(p[0]) = convert<T>(generator(i));
  }
}

template <class T, class Generator>
void launch_generate(const ember_kernel_call& call, Generator generator) {
  const CallContext context(call);
  const Loop<1> loop = make_loop<1>({&call.outputs[0]});
  if (loop.numel == 0) return;
  generate_kernel<T><<<context.blocks_for(loop.numel), kBlockThreads, 0, context.stream()>>>(loop, generator);
  check_launch(call.op_name);
}

template <class T>
struct Constant {
  T value;
  __device__ T operator()(int64_t) const { return value; }
};

// fill's value arrives as FLOAT, INT or BOOL; integers stay exact.
template <class>
struct FillKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const ember_attr* value = sdk::find_attr(call, "value");
    if (value == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "fill: attribute 'value' is missing");
    using C = Compute<T>;
    const C computed = value->kind == EMBER_ATTR_FLOAT ? static_cast<C>(value->float_value)
                                                       : static_cast<C>(value->int_value);
    launch_generate<T>(call, Constant<C>{computed});
  }
};

// start + i * step in double for floating outputs, in int64 (wrapping)
// for the others.
template <class A>
struct Ramp {
  A start;
  A step;
  __device__ A operator()(int64_t i) const {
    if constexpr (std::is_floating_point_v<A>) {
      return start + static_cast<A>(i) * step;
    } else {
      return static_cast<A>(static_cast<uint64_t>(start) + static_cast<uint64_t>(i) * static_cast<uint64_t>(step));
    }
  }
};

template <class>
struct ArangeKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    if constexpr (is_floating_v<T>) {
      launch_generate<T>(call, Ramp<double>{sdk::attr_float(call, "start"), sdk::attr_float(call, "step")});
    } else {
      launch_generate<T>(call, Ramp<int64_t>{sdk::attr_int(call, "start"), sdk::attr_int(call, "step")});
    }
  }
};

struct Words {
  uint32_t r0, r1, r2, r3;
};

// Philox4x32-10 at counter `counter` under key `seed`.
__device__ inline Words philox4x32_10(uint64_t counter, uint64_t seed) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint32_t hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const uint32_t hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c0, c1, c2, c3};
}

template <class T>
struct Uniform {
  double low, high;
  uint64_t seed, offset;
  __device__ Compute<T> operator()(int64_t i) const {
    const Words r = philox4x32_10(offset + static_cast<uint64_t>(i), seed);
    if constexpr (std::is_same_v<T, double>) {
      const double u = static_cast<double>(((uint64_t{r.r0} << 32) | r.r1) >> 11) * 0x1.0p-53;
      return low + (high - low) * u;
    } else {
      const float u = static_cast<float>(r.r0 >> 8) * 0x1.0p-24f;
      const float lo = static_cast<float>(low), hi = static_cast<float>(high);
      return static_cast<Compute<T>>(lo + (hi - lo) * u);
    }
  }
};

// Box-Muller in double for every dtype.
template <class T>
struct Normal {
  double mean, std;
  uint64_t seed, offset;
  __device__ double operator()(int64_t i) const {
    const Words r = philox4x32_10(offset + static_cast<uint64_t>(i), seed);
    const double u1 = static_cast<double>((r.r0 >> 8) + 1) * 0x1.0p-24;
    const double u2 = static_cast<double>(r.r1 >> 8) * 0x1.0p-24;
    const double z = sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
    return mean + std * z;
  }
};

template <class>
struct UniformKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    launch_generate<T>(call, Uniform<T>{sdk::attr_float(call, "low"), sdk::attr_float(call, "high"),
                                        static_cast<uint64_t>(sdk::attr_int(call, "seed")),
                                        static_cast<uint64_t>(sdk::attr_int(call, "offset"))});
  }
};

template <class>
struct NormalKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    launch_generate<T>(call, Normal<T>{sdk::attr_float(call, "mean"), sdk::attr_float(call, "std"),
                                       static_cast<uint64_t>(sdk::attr_int(call, "seed")),
                                       static_cast<uint64_t>(sdk::attr_int(call, "offset"))});
  }
};

}  // namespace

void register_factory_kernels(const sdk::Registrar& r) {
  add_kernels<FillKernel, void>(r, "fill", sdk::AllTypes{});
  add_kernels<ArangeKernel, void>(r, "arange", sdk::NumericTypes{});
  add_kernels<UniformKernel, void>(r, "uniform", sdk::FloatingTypes{});
  add_kernels<NormalKernel, void>(r, "normal", sdk::FloatingTypes{});
}

}  // namespace ember::gpu
