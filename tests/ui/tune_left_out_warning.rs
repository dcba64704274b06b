// A variant the compiler refuses for a target is left out of that target's image with a
// warning, and the module builds; the crate then fails on a Rust error of its own, so that
// trybuild records what was shown.
cuda_kernel_runtime::cuda_module! {
    mod sums {
        source = r#"
            template <int ITEMS>
            __global__ void part(const float* x, float* total, int n) {
            #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
                static_assert(ITEMS <= 4, "more than 4 items a thread needs sm_90");
            #endif
                int i = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
                for (int k = 0; k < ITEMS; ++k) if (i + k < n) atomicAdd(total, x[i + k]);
            }
        "#;
        arch = ["sm_80", "sm_90"];
        tune part {
            ITEMS = [4, 8];
            block = "256";
            grid = "n.div_ceil(256 * ITEMS)";
        }
    }
}

fn main() {
    let _: u8 = "not a number";
}
