// cuda_fp8.h's own conversions on the host, the reference tests/python/test_fp8.py compares simt
// with: reads doubles (argv[1]), writes 16 codes per input (argv[2]): the float (the double
// rounded to float) and then the double, each as E4M3 / E5M2 x NOSAT / SATFINITE, then as E8M0
// cudaRoundZero / cudaRoundPosInf x NOSAT / SATFINITE.
#include <cuda_fp8.h>
#include <cstdio>
#include <vector>
int main(int argc, char **argv) {
  FILE *in = fopen(argv[1], "rb");
  std::vector<double> xs;
  double v;
  while (fread(&v, 8, 1, in) == 1) xs.push_back(v);
  fclose(in);
  FILE *out = fopen(argv[2], "wb");
  for (double d : xs) {
    float f = (float)d;
    unsigned char r[16];
    int k = 0;
    for (int sat = 0; sat < 2; ++sat)
      for (int interp = 0; interp < 2; ++interp)
        r[k++] = __nv_cvt_float_to_fp8(f, (__nv_saturation_t)sat, (__nv_fp8_interpretation_t)interp);
    for (int sat = 0; sat < 2; ++sat)
      for (int interp = 0; interp < 2; ++interp)
        r[k++] = __nv_cvt_double_to_fp8(d, (__nv_saturation_t)sat, (__nv_fp8_interpretation_t)interp);
    for (int sat = 0; sat < 2; ++sat)
      for (int mode = 1; mode < 3; ++mode)
        r[k++] = __nv_cvt_float_to_e8m0(f, (__nv_saturation_t)sat, (cudaRoundMode)mode);
    for (int sat = 0; sat < 2; ++sat)
      for (int mode = 1; mode < 3; ++mode)
        r[k++] = __nv_cvt_double_to_e8m0(d, (__nv_saturation_t)sat, (cudaRoundMode)mode);
    fwrite(r, 1, 16, out);
  }
  fclose(out);
}
