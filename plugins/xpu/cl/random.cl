// uniform and normal (floating programs only): element i of out in
// row-major order draws Philox4x32-10 at counter offset + i, bit for bit as
// ops.md "Random numbers" prescribes, so every device agrees.
uint4 philox4x32_10(ulong counter, ulong seed) {
  uint4 c = (uint4)((uint)counter, (uint)(counter >> 32), 0u, 0u);
  uint key0 = (uint)seed;
  uint key1 = (uint)(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint hi0 = mul_hi(0xD2511F53u, c.x);
    const uint lo0 = 0xD2511F53u * c.x;
    const uint hi1 = mul_hi(0xCD9E8D57u, c.z);
    const uint lo1 = 0xCD9E8D57u * c.z;
    c = (uint4)(hi1 ^ c.y ^ key0, lo1, hi0 ^ c.w ^ key1, lo0);
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
  return c;
}

__kernel void uniform(__global S* out, ACC low, ACC high, ulong seed, ulong offset, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  const uint4 r = philox4x32_10(offset + (ulong)i, seed);
#if IS_DOUBLE
  const double u = (double)(((((ulong)r.x) << 32) | r.y) >> 11) * 0x1.0p-53;
  STORE(out, at[0], low + (high - low) * u);
#else
  // float32, and float16 and bfloat16 (whose T is float): computed in
  // float32, rounded by STORE.
  const float u = (float)(r.x >> 8) * 0x1.0p-24f;
  const float lo = (float)low;
  const float hi = (float)high;
  STORE(out, at[0], (T)(lo + (hi - lo) * u));
#endif
}

// Box-Muller in ACC (double where the device has it).
__kernel void normal(__global S* out, ACC mean, ACC std, ulong seed, ulong offset, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  const uint4 r = philox4x32_10(offset + (ulong)i, seed);
  const ACC u1 = (ACC)((r.x >> 8) + 1) * (ACC)0x1.0p-24f;
  const ACC u2 = (ACC)(r.y >> 8) * (ACC)0x1.0p-24f;
  const ACC z = sqrt((ACC)-2 * log(u1)) * cos((ACC)2 * PI_ACC * u2);
  STORE(out, at[0], (T)(mean + std * z));
}
