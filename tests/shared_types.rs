//! Types defined once, in Rust (`particles/mod.rs`, `#[derive(CudaType)]`), and shared with
//! CUDA: the kernels include the header written from them, the stubs take the Rust types
//! themselves, and a step of 100,000 particles on the GPU is checked against the same step on
//! the CPU (random, non-zero data). Through both of `cuda_module!`'s sources: a file and
//! inline text.
//!
//! The GPU tests skip (with the reason) without a GPU; they fail when `KERNEL_REQUIRE_GPU=1`.

mod particles;

use cuda_kernel_runtime::vector::Float3;
use cuda_kernel_runtime::{CudaType, Error, Launch, cuda_module, f16};
use kernel_test_support::{Rng, gpu_or_skip};
use particles::{Kind, Particle, Step};

cuda_module! {
    /// The step and the census, from a file including the shared types' header.
    mod from_file {
        file = "cuda/particles.cu";
        types = "particles/mod.rs";
    }
}

cuda_module! {
    /// A kernel in inline text over the same types.
    mod inline {
        types = ["particles/mod.rs"];
        source = r#"
            #include "particles/mod.rs.cuh"
            // Every particle's mass times `by`, and its kind made `to`.
            extern "C" __global__ void reweigh(Particle* ps, float by, Kind to, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) { ps[i].mass *= by; ps[i].kind = to; }
            }
            // The step in constant memory, written from Rust.
            __constant__ Step current;
            // Every particle's velocity gains the constant step's gravity for its time step.
            extern "C" __global__ void fall(Particle* ps, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) {
                    ps[i].vel[0] += current.gravity.x * current.dt;
                    ps[i].vel[1] += current.gravity.y * current.dt;
                    ps[i].vel[2] += current.gravity.z * current.dt;
                }
            }
        "#;
    }
}

cuda_module! {
    /// Types declared on the CUDA side: a struct without padding, one with, and enumerations;
    /// serde's derives asked for besides.
    mod cuda_side {
        derive = ["serde::Serialize", "serde::Deserialize"];
        source = r#"
            enum class Op : unsigned char { Keep = 0, Add = 1, Mul = 2 };
            enum Legacy { First, Second = 5, Again = 5 };
            struct Pair { float a; float b; };
            struct Padded { char c; double d; };
            // a = a + b or a * b, as `op` says.
            extern "C" __global__ void apply(Pair* ps, Op op, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i >= n) return;
                Pair p = ps[i];
                if (op == Op::Add) p.a = p.a + p.b;
                else if (op == Op::Mul) p.a = p.a * p.b;
                ps[i] = p;
            }
            extern "C" __global__ void touch(Padded* p, Legacy l) { p->d = (double)l; }
        "#;
        // Checked against the CUDA declaration: the enum's parameter takes the Rust enum.
        fn apply(ps: &mut [Pair], op: Op, n: i32);
    }
}

const N: usize = 100_000;

/// A shared type with no padding derives bytemuck's traits beside `CudaType` (bytemuck's
/// derive checks the padding itself).
#[derive(Clone, Copy, Debug, PartialEq, CudaType, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Sample {
    at: Float3,
    weight: f32,
}

#[test]
fn a_shared_type_takes_bytemucks_derives_beside_its_own() {
    let samples = [Sample {
        at: Float3::new(1.0, 2.0, 3.0),
        weight: 0.5,
    }];
    let bytes: &[u8] = bytemuck::cast_slice(&samples);
    assert_eq!(bytes.len(), 16);
    assert_eq!(bytemuck::cast_slice::<u8, Sample>(bytes), &samples);
    assert_eq!(Sample::CUDA_NAME, "Sample");
}

/// C enumerations become Rust enums whose values convert with a check; C structs get
/// `Default`, and bytemuck's traits where they hold.
#[test]
fn cuda_declared_enums_and_structs_get_what_a_rust_user_expects() {
    use cuda_side::{Legacy, Op, Padded, Pair};
    assert_eq!(Op::try_from(2u8), Ok(Op::Mul));
    assert_eq!(Op::try_from(9u8), Err(9));
    assert_eq!(u8::from(Op::Add), 1);
    assert_eq!(Legacy::Again, Legacy::Second);
    assert_eq!(i32::from(Legacy::Second), 5);
    assert_eq!(Pair::default(), Pair { a: 0.0, b: 0.0 });
    assert_eq!(Padded::default().d, 0.0);
    let pairs = [Pair { a: 1.5, b: -2.0 }];
    let bytes: &[u8] = bytemuck::cast_slice(&pairs);
    assert_eq!(bytes.len(), 8);
    assert_eq!(bytemuck::cast_slice::<u8, Pair>(bytes)[0], pairs[0]);
    let _: Padded = bytemuck::Zeroable::zeroed();
    // The derives asked for.
    assert_eq!(
        serde_json::to_string(&pairs[0]).unwrap(),
        r#"{"a":1.5,"b":-2.0}"#
    );
    assert_eq!(serde_json::to_string(&Op::Mul).unwrap(), r#""Mul""#);
    let back: Pair = serde_json::from_str(r#"{"a":3.0,"b":4.0}"#).unwrap();
    assert_eq!(back, Pair { a: 3.0, b: 4.0 });
}

#[test]
fn a_cuda_enum_goes_to_a_kernel_as_the_rust_enum() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = cuda_side::load(&gpu)?;
    let mut rng = Rng::with_seed(44);
    let host: Vec<cuda_side::Pair> = (0..N)
        .map(|_| cuda_side::Pair {
            a: between(&mut rng, 0.5, 2.0),
            b: between(&mut rng, -2.0, -0.5),
        })
        .collect();
    let mut ps = gpu.upload(&host)?;
    // SAFETY: `apply` reads and writes ps[i] for i < n only; ps holds n pairs.
    unsafe {
        k.apply(
            &Launch::for_num_elems(N as u32),
            &mut ps,
            cuda_side::Op::Mul,
            N as i32,
        )?
    };
    let got = gpu.download(&ps)?;
    for (g, h) in got.iter().zip(&host) {
        assert_eq!(
            *g,
            cuda_side::Pair {
                a: h.a * h.b,
                b: h.b
            }
        );
    }
    Ok(())
}

/// The stubs take the Rust types themselves: the generated modules re-export them.
#[test]
fn the_generated_modules_name_the_rust_types() {
    fn same<T: 'static, U: 'static>() -> bool {
        std::any::TypeId::of::<T>() == std::any::TypeId::of::<U>()
    }
    assert!(same::<from_file::Particle, Particle>());
    assert!(same::<from_file::Step, Step>());
    assert!(same::<inline::Particle, Particle>());
    assert_eq!(Particle::CUDA_NAME, "Particle");
    assert_eq!(Kind::CUDA_NAME, "Kind");
    // The layout the image gives the kernel's parameter is the Rust type's.
    let step = from_file::METADATA
        .kernels
        .iter()
        .find(|k| k.name == "step")
        .expect("step");
    let s = &step.params[1];
    assert_eq!((s.c_type, s.size), ("Step", size_of::<Step>() as u32));
    // After the 8-byte pointer, at the 16 bytes the Rust type's alignment asks.
    assert_eq!(s.offset as usize, align_of::<Step>().max(8));
}

fn between(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * rng.f32()
}

fn particles(rng: &mut Rng) -> Vec<Particle> {
    (0..N)
        .map(|i| Particle {
            pos: Float3::new(
                between(rng, -10.0, 10.0),
                between(rng, -0.5, 4.0),
                between(rng, -10.0, 10.0),
            ),
            vel: [
                between(rng, -3.0, 3.0),
                between(rng, -8.0, 2.0),
                between(rng, -3.0, 3.0),
            ],
            mass: between(rng, 0.5, 4.0),
            kind: [Kind::Gas, Kind::Dust, Kind::Ice][i % 3],
            bounces: rng.u64(0..5) as u16,
            charge: f16::from_f32(between(rng, -2.0, 2.0)),
        })
        .collect()
}

/// The kernel's step, on the CPU, with the height reached before the floor is tested.
fn step_cpu(p: &Particle, s: &Step) -> (Particle, f32) {
    let mut p = *p;
    let drag = s.drag[p.kind as usize];
    let q = p.charge.to_f32() / p.mass;
    let acc = [
        s.gravity.x + q * s.field.x,
        s.gravity.y + q * s.field.y,
        s.gravity.z + q * s.field.z,
    ];
    for (v, a) in p.vel.iter_mut().zip(acc) {
        *v = (*v + a * s.dt) * (1.0 - drag * s.dt);
    }
    p.pos.x += p.vel[0] * s.dt;
    p.pos.y += p.vel[1] * s.dt;
    p.pos.z += p.vel[2] * s.dt;
    let reached = p.pos.y;
    if p.pos.y < s.floor as f32 {
        p.pos.y = s.floor as f32;
        p.vel[1] = -p.vel[1];
        p.bounces += 1;
        if p.kind == Kind::Gas {
            p.kind = Kind::Dust;
        }
    }
    (p, reached)
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-4 * (1.0 + b.abs())
}

#[test]
fn a_step_of_rust_defined_particles_matches_the_cpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = from_file::load(&gpu)?;
    let mut rng = Rng::with_seed(42);
    let host = particles(&mut rng);
    let s = Step {
        dt: 0.05,
        gravity: Float3::new(0.0, -9.81, 0.0),
        drag: [0.9, 0.3, 0.1],
        floor: 0.0,
        field: Float3::new(
            between(&mut rng, -1.0, 1.0),
            between(&mut rng, -1.0, 1.0),
            0.5,
        ),
    };
    let mut ps = gpu.upload(&host)?;
    let cfg = Launch::for_num_elems(N as u32);
    // SAFETY: `step` reads and writes ps[i] for i < n only; ps holds n particles.
    unsafe { k.step(&cfg, &mut ps, s, N as i32)? };
    let got = gpu.download(&ps)?;
    let mut checked_bounces = 0;
    for (i, (g, h)) in got.iter().zip(&host).enumerate() {
        let (want, reached) = step_cpu(h, &s);
        // Where the particle ends within rounding of the floor, the GPU's fused arithmetic
        // may decide the bounce the other way: the position is still compared.
        let at_floor = (reached - s.floor as f32).abs() < 1e-3;
        if !at_floor {
            assert_eq!(
                (g.kind, g.bounces),
                (want.kind, want.bounces),
                "particle {i}"
            );
            checked_bounces += 1;
        }
        for (a, b) in [
            (g.pos.x, want.pos.x),
            (g.pos.y, want.pos.y),
            (g.pos.z, want.pos.z),
            (g.vel[0], want.vel[0]),
            (g.vel[1].abs(), want.vel[1].abs()),
            (g.vel[2], want.vel[2]),
        ] {
            assert!(close(a, b), "particle {i}: {g:?} against {want:?}");
        }
        assert_eq!((g.mass, g.charge), (h.mass, h.charge), "particle {i}");
    }
    assert!(checked_bounces > N * 9 / 10, "{checked_bounces}");
    let bounced = got
        .iter()
        .zip(&host)
        .filter(|(g, h)| g.bounces > h.bounces)
        .count();
    assert!(bounced > 1000 && bounced < N, "{bounced} bounced");

    // The census reads the kinds the step wrote.
    let mut counts = gpu.zeros::<u32>(3)?;
    // SAFETY: `census` reads ps[i] for i < n and adds to counts[kind], kind < 3.
    unsafe { k.census(&cfg, &ps, N as i32, &mut counts)? };
    let mut want = [0u32; 3];
    for p in &got {
        want[p.kind as usize] += 1;
    }
    assert_eq!(gpu.download(&counts)?, want);
    Ok(())
}

#[test]
fn inline_kernels_take_the_rust_types_by_pointer_by_value_and_in_constant_memory()
-> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = inline::load(&gpu)?;
    let mut rng = Rng::with_seed(43);
    let host = particles(&mut rng);
    let mut ps = gpu.upload(&host)?;
    let by = between(&mut rng, 0.5, 2.0);
    // SAFETY: `reweigh` writes ps[i] for i < n only; ps holds n particles.
    unsafe {
        k.reweigh(
            &Launch::for_num_elems(N as u32),
            &mut ps,
            by,
            Kind::Ice,
            N as i32,
        )?
    };
    let got = gpu.download(&ps)?;
    for (g, h) in got.iter().zip(&host) {
        let want = Particle {
            mass: h.mass * by,
            kind: Kind::Ice,
            ..*h
        };
        assert_eq!(*g, want);
    }

    // A Rust-defined struct in `__constant__` memory, written and read back.
    let s = Step {
        dt: between(&mut rng, 0.01, 0.1),
        gravity: Float3::new(
            between(&mut rng, -1.0, 1.0),
            between(&mut rng, -10.0, -5.0),
            between(&mut rng, -1.0, 1.0),
        ),
        drag: [0.1, 0.2, 0.3],
        floor: -1.5,
        field: Float3::new(0.25, 0.5, 0.75),
    };
    let current = k.current()?;
    current.write(&s)?;
    assert_eq!(current.read()?, s);
    // SAFETY: `fall` writes ps[i] for i < n only; ps holds n particles.
    unsafe { k.fall(&Launch::for_num_elems(N as u32), &mut ps, N as i32)? };
    let fallen = gpu.download(&ps)?;
    for (f, g) in fallen.iter().zip(&got) {
        let want = [
            g.vel[0] + s.gravity.x * s.dt,
            g.vel[1] + s.gravity.y * s.dt,
            g.vel[2] + s.gravity.z * s.dt,
        ];
        for (a, b) in f.vel.iter().zip(want) {
            assert!(close(*a, b), "{f:?}");
        }
    }
    Ok(())
}
