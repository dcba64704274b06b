//! A build script's module over types defined once, in Rust (`src/particles.rs`,
//! `Build::rust_types`): a step of 65,537 particles on the GPU against the same step on the
//! CPU, on random non-zero data, the stub taking the crate's own `Particle` and `Params`.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::vector::Float3;
use cuda_kernel_runtime::{Error, Launch};
use kernel_example_buildrs::particles::{Kind, Params, Particle};
use kernel_example_buildrs::sim;
use kernel_test_support::{Rng, gpu_or_skip};

const N: usize = 65_537;

fn between(r: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * r.f32()
}

#[test]
fn a_step_of_particles_defined_in_rust_matches_the_cpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let mut r = Rng::with_seed(7);
    let v3 = |r: &mut Rng| {
        Float3::new(
            between(r, -5.0, 5.0),
            between(r, -5.0, 5.0),
            between(r, 0.5, 5.0),
        )
    };
    let host: Vec<Particle> = (0..N)
        .map(|i| Particle {
            pos: v3(&mut r),
            vel: v3(&mut r),
            mass: between(&mut r, 0.5, 3.0),
            kind: if i % 3 == 0 { Kind::Dust } else { Kind::Gas },
        })
        .collect();
    let p = Params {
        dt: 0.01,
        gravity: Float3::new(0.0, -9.81, between(&mut r, 0.1, 1.0)),
        drag: [0.8, 0.2],
    };
    let mut ps = gpu.upload(&host)?;
    // SAFETY: `advance` reads and writes ps[i] for i < n only; ps holds n particles.
    unsafe { sim::load(&gpu)?.advance(&Launch::for_num_elems(N as u32), &mut ps, p, N as i32)? };
    let got = gpu.download(&ps)?;
    for (i, (g, h)) in got.iter().zip(&host).enumerate() {
        let keep = 1.0 - p.drag[h.kind as usize] * p.dt;
        let vel = [
            (h.vel.x + p.gravity.x * p.dt) * keep,
            (h.vel.y + p.gravity.y * p.dt) * keep,
            (h.vel.z + p.gravity.z * p.dt) * keep,
        ];
        let pos = [
            h.pos.x + vel[0] * p.dt,
            h.pos.y + vel[1] * p.dt,
            h.pos.z + vel[2] * p.dt,
        ];
        let got_v = [g.vel.x, g.vel.y, g.vel.z, g.pos.x, g.pos.y, g.pos.z];
        for (a, b) in got_v.iter().zip(vel.iter().chain(&pos)) {
            assert!(
                (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                "particle {i}: {g:?}"
            );
        }
        assert_eq!((g.mass, g.kind), (h.mass, h.kind), "particle {i}");
    }
    Ok(())
}
