// One explicit step of charged particles under gravity, with drag by kind and a bouncing
// floor; the types come from the Rust definitions in particles/mod.rs.
#include "particles/mod.rs.cuh"

extern "C" __global__ void step(Particle* ps, Step s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle p = ps[i];
    float drag = s.drag[(int)p.kind];
    float q = __half2float(p.charge) / p.mass;
    float acc[3] = {s.gravity.x + q * s.field.x, s.gravity.y + q * s.field.y,
                    s.gravity.z + q * s.field.z};
    for (int k = 0; k < 3; ++k) {
        p.vel[k] = (p.vel[k] + acc[k] * s.dt) * (1.0f - drag * s.dt);
    }
    p.pos.x += p.vel[0] * s.dt;
    p.pos.y += p.vel[1] * s.dt;
    p.pos.z += p.vel[2] * s.dt;
    if (p.pos.y < (float)s.floor) {
        p.pos.y = (float)s.floor;
        p.vel[1] = -p.vel[1];
        p.bounces += 1;
        if (p.kind == Kind::Gas) p.kind = Kind::Dust;
    }
    ps[i] = p;
}

// How many particles of each kind.
extern "C" __global__ void census(const Particle* ps, int n, unsigned int* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[(int)ps[i].kind], 1u);
}
