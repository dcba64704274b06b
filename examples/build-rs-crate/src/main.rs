//! The build.rs example as a binary: `cargo run -p kernel-example-buildrs`.

fn main() -> std::process::ExitCode {
    kernel_example_buildrs::run()
}
