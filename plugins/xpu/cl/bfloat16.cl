// Shared by the plugin's programs and the programs it generates from EKIR.

// bfloat16 is the upper half of a float32, rounded to nearest even; NaN
// stays a quiet NaN (rounding alone could carry a NaN's low payload bits
// into the exponent and make it infinity).
ushort bfloat16_bits(float f) {
  const uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
