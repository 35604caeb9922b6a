// simt-gpu-run --selftest's kernel: hand-written PTX in Numba's kernel ABI, `simt_selftest(a,
// factor)` with `a` a 1-d float32 array: a[i] *= factor for i < a.shape[0], and thread
// a.shape[0] (the first past the end) records an IndexError at location 7 in simt_exception as
// simt's kernels do. It checks the driver layer, the ABI and the exception record end to end on
// a GPU without simt's compiler. tests/unit/driver checks it with ptxas (sm_75, sm_90) where the
// CUDA toolkit is installed.
#pragma once

namespace simt::gpu {

inline const char *const selftest_ptx = R"PTX(.version 6.4
.target sm_75
.address_size 64

.visible .global .align 4 .b8 simt_exception[32];

.visible .entry simt_selftest(
	.param .u64 simt_selftest_meminfo,
	.param .u64 simt_selftest_parent,
	.param .u64 simt_selftest_nitems,
	.param .u64 simt_selftest_itemsize,
	.param .u64 simt_selftest_data,
	.param .u64 simt_selftest_shape0,
	.param .u64 simt_selftest_stride0,
	.param .f32 simt_selftest_factor
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<12>;
	.reg .f32 %f<4>;

	ld.param.u64 %rd1, [simt_selftest_data];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [simt_selftest_shape0];
	ld.param.u64 %rd3, [simt_selftest_stride0];
	ld.param.f32 %f1, [simt_selftest_factor];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	cvt.s64.s32 %rd4, %r4;
	setp.lt.s64 %p1, %rd4, %rd2;
	@!%p1 bra $L_outside;
	mad.lo.s64 %rd5, %rd4, %rd3, %rd1;
	ld.global.f32 %f2, [%rd5];
	mul.rn.f32 %f3, %f2, %f1;
	st.global.f32 [%rd5], %f3;
	ret;
$L_outside:
	setp.ne.s64 %p2, %rd4, %rd2;
	@%p2 bra $L_done;
	mov.u64 %rd6, simt_exception;
	atom.global.cas.b32 %r5, [%rd6], 0, 1;
	setp.ne.s32 %p3, %r5, 0;
	@%p3 bra $L_done;
	mov.u32 %r6, 7;
	st.global.u32 [%rd6+4], %r6;
	st.global.u32 [%rd6+8], %r3;
	mov.u32 %r7, %tid.y;
	st.global.u32 [%rd6+12], %r7;
	mov.u32 %r8, %tid.z;
	st.global.u32 [%rd6+16], %r8;
	st.global.u32 [%rd6+20], %r1;
	mov.u32 %r9, %ctaid.y;
	st.global.u32 [%rd6+24], %r9;
	mov.u32 %r10, %ctaid.z;
	st.global.u32 [%rd6+28], %r10;
$L_done:
	ret;
}
)PTX";

} // namespace simt::gpu
