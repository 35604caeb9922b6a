// cuda_fp8.h's FP8 value types on the host, the reference tests/python/test_fp8_types.py compares
// simt with. Reads doubles (argv[1]) and int64s (argv[2]); writes (argv[3]), per double and per
// type (__nv_fp8_e4m3, __nv_fp8_e5m2, __nv_fp8_e8m0), a FromDouble record, then per int64 and
// per type a FromInt record.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#pragma pack(push, 1)
struct FromDouble {
  // codes constructed from (float)d, d, the half and the bfloat16 nearest (float)d
  uint8_t of_float, of_double, of_half, of_bfloat16;
  // the conversions of the value made from (float)d
  uint32_t to_float;      // bits
  uint64_t to_double;     // bits
  uint16_t to_half;       // bits
  uint32_t to_bfloat16;   // the float of its bits, bits
  uint8_t to_uchar;
  int8_t to_schar;
  uint16_t to_ushort;
  int16_t to_short;
  uint32_t to_uint;
  int32_t to_int;
  uint64_t to_ull;
  int64_t to_ll;
  uint8_t to_bool;
};
struct FromInt { // codes constructed from n as each integer type
  uint8_t of_ll, of_ull, of_int, of_uint, of_short, of_ushort;
};
#pragma pack(pop)

template <typename T> uint64_t bits_of(T value) {
  uint64_t bits = 0;
  memcpy(&bits, &value, sizeof value);
  return bits;
}

template <typename T> FromDouble from_double(double d) {
  const float f = (float)d;
  const T v(f);
  FromDouble r;
  r.of_float = v.__x;
  r.of_double = T(d).__x;
  r.of_half = T(__float2half_rn(f)).__x;
  r.of_bfloat16 = T(__float2bfloat16_rn(f)).__x;
  r.to_float = (uint32_t)bits_of(float(v));
  r.to_double = bits_of(double(v));
  r.to_half = (uint16_t)bits_of(__half(v));
  r.to_bfloat16 = (uint32_t)bits_of(__bfloat162float(__nv_bfloat16(v)));
  r.to_uchar = (unsigned char)v;
  r.to_schar = (signed char)v;
  r.to_ushort = (unsigned short)v;
  r.to_short = (short)v;
  r.to_uint = (unsigned int)v;
  r.to_int = (int)v;
  r.to_ull = (unsigned long long)v;
  r.to_ll = (long long)v;
  r.to_bool = (bool)v;
  return r;
}

template <typename T> FromInt from_int(int64_t n) {
  return {T((long long)n).__x,  T((unsigned long long)n).__x, T((int)n).__x,
          T((unsigned)n).__x,   T((short)n).__x,              T((unsigned short)n).__x};
}

template <typename V> std::vector<V> read_all(const char *path) {
  std::vector<V> values;
  FILE *in = fopen(path, "rb");
  V v;
  while (fread(&v, sizeof v, 1, in) == 1)
    values.push_back(v);
  fclose(in);
  return values;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  FILE *out = fopen(argv[3], "wb");
  for (double d : read_all<double>(argv[1])) {
    FromDouble r[3] = {from_double<__nv_fp8_e4m3>(d), from_double<__nv_fp8_e5m2>(d),
                       from_double<__nv_fp8_e8m0>(d)};
    fwrite(r, sizeof r, 1, out);
  }
  for (int64_t n : read_all<int64_t>(argv[2])) {
    FromInt r[3] = {from_int<__nv_fp8_e4m3>(n), from_int<__nv_fp8_e5m2>(n),
                    from_int<__nv_fp8_e8m0>(n)};
    fwrite(r, sizeof r, 1, out);
  }
  fclose(out);
}
