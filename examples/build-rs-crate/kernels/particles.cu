// One explicit step of particles under gravity with drag by kind; Particle, Kind and Params
// are declared in Rust (src/particles.rs), and build.rs writes the header included here.
#include "src/particles.rs.cuh"

extern "C" __global__ void advance(Particle* ps, Params p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle q = ps[i];
    float keep = 1.0f - p.drag[(int)q.kind] * p.dt;
    q.vel.x = (q.vel.x + p.gravity.x * p.dt) * keep;
    q.vel.y = (q.vel.y + p.gravity.y * p.dt) * keep;
    q.vel.z = (q.vel.z + p.gravity.z * p.dt) * keep;
    q.pos.x += q.vel.x * p.dt;
    q.pos.y += q.vel.y * p.dt;
    q.pos.z += q.vel.z * p.dt;
    ps[i] = q;
}
