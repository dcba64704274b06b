// A kernel that writes one element past the end of its output: compute-sanitizer's report of
// the write must name this file and the line of the write (tests/sanitizer_lines.rs finds the
// line by the comment on it).

extern "C" __global__ void overrun(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        out[i] = 2.0f * in[i < n ? i : 0]; // the write past the end
    }
}
